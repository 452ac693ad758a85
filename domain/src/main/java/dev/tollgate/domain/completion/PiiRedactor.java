package dev.tollgate.domain.completion;

import java.text.Normalizer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Privacy sanitisation of the public playground (§6.8, §8.2): personal data is replaced by a placeholder before a
 * prompt leaves the gateway — e-mail addresses ({@code [email]}), payment card numbers that pass the Luhn check
 * ({@code [card]}), IBANs that pass their mod-97 check ({@code [iban]}), US social security numbers
 * ({@code [ssn]}) and phone numbers of 9 to 15 digits ({@code [phone]}). Checksums keep ordinary long numbers
 * (order ids, amounts) untouched; every pattern has bounded repetition, so a hostile prompt cannot make matching
 * slow. Nothing is announced to the client (clients must not rely on any prelude event, §6.8).
 */
public final class PiiRedactor implements UnaryOperator<String> {

    /** Local part and domain in any script (internationalised addresses), the top-level domain in letters. */
    private static final Pattern EMAIL = Pattern.compile("(?<![\\p{L}\\p{N}._%+-])[\\p{L}\\p{N}\\p{M}._%+-]{1,64}@"
            + "(?:[\\p{L}\\p{N}\\p{M}-]{1,63}\\.){1,8}\\p{L}{2,24}(?![\\p{L}\\p{N}\\p{M}-])");
    /**
     * 13 to 19 digits, with a separator of their groups between any two: a space, tab or dash, two spaces, a dash
     * with spaces around it, or a line break (a number pasted from a form or a table).
     */
    private static final Pattern CARD = Pattern.compile(
            "(?<![\\d-])(?:\\d(?:[ \\t-]| {2}| - |\\r?\\n)?){12,18}\\d(?!\\d)");
    /** Groups of four joined by dots or slashes (4111.1111.1111.1111): only in that shape, not any decimal. */
    private static final Pattern CARD_GROUPED = Pattern.compile(
            "(?<![\\d./-])\\d{4}([./])\\d{4}\\1\\d{4}\\1\\d{1,7}(?![\\d./])");
    /** Country, check digits and 11 to 30 letters or digits; a space, dash, dot or line break between any two. */
    private static final Pattern IBAN = Pattern.compile(
            "(?<![A-Za-z0-9])[A-Za-z]{2} ?\\d{2}(?:(?:[ .-]|\\r?\\n)?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])");
    private static final Pattern SSN = Pattern.compile("(?<![\\d-])\\d{3}-\\d{2}-\\d{4}(?![\\d-])");
    /**
     * An optional country code and area code in brackets, then groups of digits joined by a space, dot, dash or
     * slash (with spaces around it): the first of one to five digits (+33 6 12 34 56 78), the others of two to
     * eight. At least two groups, so a bare run of digits (an order id) is no phone; nothing right after a dash,
     * dot or word, so the tail of an ISBN or a version is none either.
     */
    private static final Pattern PHONE = Pattern.compile("(?<![\\w+.-])(?:(?:\\+|00 ?)\\d{1,3}(?:[ .-]| ?/ ?)?)?"
            + "(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,5}(?:(?:[ .-]| ?/ ?| {2})\\d{2,8}){1,6}(?![\\w]|:\\d)");
    /**
     * Forms without the groups above: the international one with its {@code +} (E.164, +14155552671, or with any
     * separators after the country code), an area code in brackets followed by the number at once ((415)5552671),
     * and national numbers written as one run after their trunk prefix 0 (0612345678, 07700900123) or as a Chinese
     * mobile number (13800138000). A {@code +} or a trunk prefix is what tells them from other runs of digits.
     */
    private static final Pattern PHONE_UNGROUPED = Pattern.compile("(?<![\\w+])\\+\\d(?:[ .()/-]{0,2}\\d){7,14}(?!\\w)"
            + "|(?<![\\w.-])\\(\\d{2,4}\\)\\d{6,8}(?![\\w])"
            + "|(?<![\\w.+-])(?:0[1-9]\\d{8,9}|00[1-9]\\d{7,13}|1[3-9]\\d{9})(?!\\w|[.-]\\d)");
    /** Invisible format characters (Unicode category Cf: U+00AD, U+200B–U+200F, U+2060–U+2064, U+FEFF, ...). */
    private static final Pattern FORMAT = Pattern.compile("\\p{Cf}");
    /** HTML numeric character references ({@code &#64;}, {@code &#x40;}) and the named one of {@code @}. */
    private static final Pattern ENTITY = Pattern.compile("&#(?:[xX]([0-9a-fA-F]{1,6})|(\\d{1,7}));|&commat;");
    /** A JSON {@code \\u} escape, as it stays in text that is itself JSON inside a string (tool-call arguments). */
    private static final Pattern ESCAPE = Pattern.compile("\\\\u([0-9a-fA-F]{4})");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\[(?:email|card|iban|ssn|phone)]");

    @Override
    public String apply(String text) {
        if (text.isEmpty()) {
            return text;
        }
        String redacted = redact(text);
        // Data written another way must not hide: escapes that a JSON text inside a string keeps (an @ written as
        // its escape), HTML character references, compatibility forms (fullwidth ＠ and digits), digits of other
        // scripts and look-alike separators. The text with those read as what they stand for is redacted too, and
        // wins when it finds more.
        String folded = fold(text.indexOf('\\') < 0 ? text : decodeEscapes(text));
        if (folded.equals(text)) {
            return redacted;
        }
        String redactedFolded = redact(folded);
        int found = placeholders(redacted);
        int foundFolded = placeholders(redactedFolded);
        // As many found both ways: the folded reading may still cover more of them (an address cut by a soft
        // hyphen is found from the cut on in the text as written, whole when folded).
        return foundFolded > found || foundFolded == found && found > 0
                && unredacted(redactedFolded) < unredacted(redacted) ? redactedFolded : redacted;
    }

    /** How much of a redacted text is not placeholders. */
    private static int unredacted(String redacted) {
        return PLACEHOLDER.matcher(redacted).replaceAll("").length();
    }

    /**
     * The text as a reader sees it: NFKC (fullwidth and other compatibility forms to their plain ones), decimal
     * digits of any script as ASCII digits, look-alike spaces and dashes as ASCII ones, character references of
     * letters, digits and {@code @._%+-} decoded.
     */
    private static String fold(String text) {
        String result = text;
        if (result.indexOf('&') >= 0) {
            result = ENTITY.matcher(result).replaceAll(m -> {
                int code = m.group(1) != null ? Integer.parseInt(m.group(1), 16)
                        : m.group(2) != null ? Integer.parseInt(m.group(2)) : '@';
                return Character.isValidCodePoint(code) && (Character.isLetterOrDigit(code) || "@._%+-".indexOf(code) >= 0)
                        ? Matcher.quoteReplacement(Character.toString(code)) : Matcher.quoteReplacement(m.group());
            });
        }
        if (!Normalizer.isNormalized(result, Normalizer.Form.NFKC)) {
            result = Normalizer.normalize(result, Normalizer.Form.NFKC);
        }
        if (hasFormatCharacters(result)) {
            // Invisible characters (zero-width spaces and joiners, soft hyphens, word joiners) split what a reader
            // sees as one address or number: they are read as nothing.
            result = FORMAT.matcher(result).replaceAll("");
        }
        StringBuilder plain = null;
        for (int i = 0; i < result.length(); i++) {
            char c = result.charAt(i);
            char replacement = c;
            if (c > '9' && Character.isDigit(c)) {
                replacement = (char) ('0' + Character.digit(c, 10));
            } else if (c == '\u00A0' || c == '\u2007' || c == '\u202F') {
                // No-break spaces look like the space that joins the groups of a number.
                replacement = ' ';
            } else if (c >= '\u2010' && c <= '\u2015' || c == '\u2212') {
                // Hyphens, en and em dashes and the minus sign look like its dash.
                replacement = '-';
            }
            if (replacement != c && plain == null) {
                plain = new StringBuilder(result);
            }
            if (plain != null) {
                plain.setCharAt(i, replacement);
            }
        }
        return plain == null ? result : plain.toString();
    }

    private static boolean hasFormatCharacters(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.getType(text.charAt(i)) == Character.FORMAT) {
                return true;
            }
        }
        return false;
    }

    private static String redact(String text) {
        String result = EMAIL.matcher(text).replaceAll("[email]");
        result = replace(result, CARD, "[card]", PiiRedactor::luhn);
        result = replace(result, CARD_GROUPED, "[card]", PiiRedactor::luhn);
        result = replaceIbans(result);
        result = SSN.matcher(result).replaceAll("[ssn]");
        result = replace(result, PHONE, "[phone]", PiiRedactor::groupedPhone);
        return replace(result, PHONE_UNGROUPED, "[phone]", PiiRedactor::phoneLength);
    }

    /** Decodes the {@code \\u} escapes of letters, digits and {@code @._%+-}; others (quotes...) stay escaped. */
    private static String decodeEscapes(String text) {
        return ESCAPE.matcher(text).replaceAll(m -> {
            char c = (char) Integer.parseInt(m.group(1), 16);
            return Character.isLetterOrDigit(c) || "@._%+-".indexOf(c) >= 0
                    ? Matcher.quoteReplacement(String.valueOf(c)) : Matcher.quoteReplacement(m.group());
        });
    }

    private static int placeholders(String text) {
        return (int) PLACEHOLDER.matcher(text).results().count();
    }

    private interface Check {
        boolean holds(String match);
    }

    private static String replace(String text, Pattern pattern, String placeholder, Check check) {
        Matcher matcher = pattern.matcher(text);
        StringBuilder out = null;
        int last = 0;
        while (matcher.find()) {
            if (!check.holds(matcher.group())) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, last, matcher.start()).append(placeholder);
            last = matcher.end();
        }
        if (out == null) {
            return text;
        }
        return out.append(text, last, text.length()).toString();
    }

    /**
     * IBANs: a candidate may run on into the words after it (letters and digits in groups are what an IBAN is made
     * of), so when the whole candidate fails the checksum, its prefixes ending before a separator are tried, longest
     * first.
     */
    private static String replaceIbans(String text) {
        Matcher matcher = IBAN.matcher(text);
        StringBuilder out = null;
        int last = 0;
        int from = 0;
        while (from < text.length() && matcher.find(from)) {
            String candidate = matcher.group();
            int length = candidate.length();
            while (length >= 15 && !iban(candidate.substring(0, length))) {
                int cut = lastSeparator(candidate, length - 1);
                length = cut;
            }
            if (length < 15) {
                from = matcher.start() + 1;
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, last, matcher.start()).append("[iban]");
            last = matcher.start() + length;
            from = last;
        }
        return out == null ? text : out.append(text, last, text.length()).toString();
    }

    /** The last separator of an IBAN's groups at or before {@code from}, or -1. */
    private static int lastSeparator(String candidate, int from) {
        for (int i = from; i >= 0; i--) {
            char c = candidate.charAt(i);
            if (c == ' ' || c == '-' || c == '.' || c == '\n' || c == '\r') {
                return i;
            }
        }
        return -1;
    }

    private static boolean luhn(String match) {
        int sum = 0;
        int digits = 0;
        for (int i = match.length() - 1; i >= 0; i--) {
            char c = match.charAt(i);
            if (c < '0' || c > '9') {
                continue;
            }
            int d = c - '0';
            if (digits++ % 2 == 1) {
                d = d * 2 > 9 ? d * 2 - 9 : d * 2;
            }
            sum += d;
        }
        return digits >= 13 && digits <= 19 && sum % 10 == 0;
    }

    private static boolean iban(String match) {
        String compact = match.replaceAll("[\\s.-]", "").toUpperCase(java.util.Locale.ROOT);
        String rearranged = compact.substring(4) + compact.substring(0, 4);
        int remainder = 0;
        for (int i = 0; i < rearranged.length(); i++) {
            char c = rearranged.charAt(i);
            int value = Character.isDigit(c) ? c - '0' : c - 'A' + 10;
            remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
        }
        return remainder == 1;
    }

    /**
     * A date, a time, an IPv4 address or a number grouped in thousands is written in groups of digits too: dates
     * ({@code 2024-01-15 1030}, {@code 15.01.2024}) and times ({@code 10:30}, which the pattern stops before) are the
     * commonest text of logs, so the shapes that are almost never a phone number are left alone.
     */
    private static boolean groupedPhone(String match) {
        return phoneLength(match) && !DATE_FIRST.matcher(match).lookingAt() && !IPV4.matcher(match).matches()
                && !THOUSANDS.matcher(match).matches();
    }

    /** A match that begins with a date, year first or last. */
    private static final Pattern DATE_FIRST = Pattern.compile("(?:(?:19|20)\\d{2}([-/.])(?:0?[1-9]|1[0-2])\\1"
            + "(?:0?[1-9]|[12]\\d|3[01])|(?:0?[1-9]|[12]\\d|3[01])([-/.])(?:0?[1-9]|1[0-2])\\2(?:19|20)\\d{2})"
            + "(?!\\d)");
    private static final Pattern IPV4 = Pattern.compile("(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d"
            + "|1?\\d?\\d)){3}");
    /** One to three digits, then at least three groups of exactly three (1 000 000, 12.345.678.901). */
    private static final Pattern THOUSANDS = Pattern.compile("\\d{1,3}(?:([ .])\\d{3})(?:\\1\\d{3}){2,}");

    private static boolean phoneLength(String match) {
        int digits = 0;
        for (int i = 0; i < match.length(); i++) {
            if (Character.isDigit(match.charAt(i))) {
                digits++;
            }
        }
        return digits >= 9 && digits <= 15;
    }
}
