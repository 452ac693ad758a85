package dev.tollgate.domain.completion;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Privacy sanitisation of the public playground (§6.8, §8.2): personal data is replaced by a placeholder before a
 * prompt leaves the gateway — e-mail addresses ({@code [email]}), payment card numbers in the shapes cards are
 * written in that pass the Luhn check ({@code [card]}), IBANs that pass their mod-97 check ({@code [iban]}), US
 * social security numbers ({@code [ssn]}) and phone numbers of 9 to 15 digits marked as such by a {@code +}, an
 * international {@code 00}, a trunk prefix 0 or the North American 3-3-4 grouping ({@code [phone]}). Checksums and
 * those marks keep ordinary numbers (order ids, amounts, lists, years, ports) untouched; every pattern has bounded
 * repetition, so a hostile prompt cannot make matching slow. Only the matched spans change: the rest of the text
 * goes upstream exactly as written. Nothing is announced to the client (clients must not rely on any prelude
 * event, §6.8).
 */
public final class PiiRedactor implements UnaryOperator<String> {

    /**
     * Local part and domain in any script (internationalised addresses), the top-level domain in letters or in its
     * ASCII (punycode) form, {@code xn--p1ai}. A candidate whose top-level label is a file extension is a file name
     * ({@code icon@2x.png}), see {@link #FILE_EXTENSIONS}.
     */
    private static final String LOCAL_PART = "(?<![\\p{L}\\p{N}._%+-])[\\p{L}\\p{N}\\p{M}._%+-]"
            + "[\\p{L}\\p{N}\\p{M}._%+'-]{0,63}"; // an apostrophe inside (o'brien@…), not first: 'bob@…' quoted
    private static final String DOMAIN = "(?:[\\p{L}\\p{N}\\p{M}-]{1,63}\\.){1,8}"
            + "(?:\\p{L}{2,24}|[Xx][Nn]--[A-Za-z0-9-]{1,59})(?![\\p{L}\\p{N}\\p{M}-])";
    private static final Pattern EMAIL = Pattern.compile(LOCAL_PART + "@" + DOMAIN);
    /**
     * The rarer shapes RFC 5321 allows: a quoted local part ({@code "bob smith"@example.com}) with any domain, and a
     * domain that is an address literal ({@code user@[192.168.0.1]}, {@code user@[IPv6:2001:db8::1]}).
     */
    private static final String ADDRESS_LITERAL = "\\[(?:[0-9]{1,3}(?:\\.[0-9]{1,3}){3}"
            + "|[Ii][Pp][Vv]6:[0-9A-Fa-f:.]{2,45})\\]";
    private static final Pattern EMAIL_QUOTED_OR_LITERAL = Pattern.compile("\"[^\"\\r\\n]{1,64}\"@(?:"
            + ADDRESS_LITERAL + "|" + DOMAIN + ")|" + LOCAL_PART + "@" + ADDRESS_LITERAL);
    /**
     * Common file extensions that are not delegated top-level domains, so an address can never end in one. Those
     * that are (.pl, .md, .py, .sh, .rs, .ai country codes, the .zip and .mov gTLDs) are left out: real addresses
     * use them.
     */
    private static final Set<String> FILE_EXTENSIONS = Set.of("png", "jpg", "jpeg", "gif", "webp", "svg", "bmp",
            "ico", "tif", "tiff", "heic", "avif", "psd", "pdf", "txt", "csv", "tsv", "json", "xml", "yaml", "yml",
            "toml", "ini", "cfg", "conf", "log", "lock", "html", "htm", "css", "scss", "js", "mjs", "cjs", "ts", "tsx",
            "jsx", "java", "kt", "kts", "class", "jar", "war", "rb", "php", "go", "swift", "cpp", "hpp", "lua", "sql",
            "db", "sqlite", "exe", "dll", "bin", "dat", "tmp", "bak", "tar", "gz", "tgz", "rar", "doc", "docx", "xls",
            "xlsx", "ppt", "pptx", "odt", "rtf", "wav", "flac", "ogg", "webm", "mkv", "avi", "wmv", "woff", "ttf",
            "otf", "apk", "ipa", "dmg", "iso", "msi", "deb", "rpm");
    /** Between the groups of a card: a space, tab or dash, two spaces, a dash with spaces around it, a line break. */
    private static final String CARD_GAP = "(?:[ \\t-]| {2}| - |\\r?\\n)";
    /**
     * The shapes card numbers are written in: groups of four, the last of one to four digits, then maybe one of one
     * to three (13 to 19 digits in all), 4-6-5 (American Express) or 4-6-4 (Diners Club), or one unbroken run of 13
     * to 19 digits. Groups of other sizes (a list of small numbers) are no card whatever their checksum, and
     * neither is the tail of a longer grouped number (an IBAN with a wrong checksum).
     */
    private static final Pattern CARD = Pattern.compile("(?<![\\d-])(?<!\\d[ \\t\\n-])(?:"
            + "\\d{4}(?:" + CARD_GAP + "\\d{4}){2}" + CARD_GAP + "\\d{1,4}(?:" + CARD_GAP + "\\d{1,3})?"
            + "|\\d{4}" + CARD_GAP + "\\d{6}" + CARD_GAP + "\\d{4,5}|\\d{13,19})(?!\\d)");
    /** Groups of four joined by dots or slashes (4111.1111.1111.1111): only in that shape, not any decimal. */
    private static final Pattern CARD_GROUPED = Pattern.compile(
            "(?<![\\d./-])\\d{4}([./])\\d{4}\\1\\d{4}\\1\\d{1,4}(?:\\1\\d{1,3})?(?![\\d./])");
    /**
     * Groups of four whose separators mix a dot or slash with the others ({@code 4111 1111.1111 1111},
     * {@code 4111/1111-1111-1111}): the shape of a card typed carelessly; never the tail of a longer grouped number.
     */
    private static final String CARD_MIXED_GAP = "(?:[ \\t./-]| {2}| - |\\r?\\n)";
    private static final Pattern CARD_MIXED = Pattern.compile("(?<![\\d./-])(?<!\\d[ \\t\\n./-])\\d{4}(?:"
            + CARD_MIXED_GAP + "\\d{4}){2}" + CARD_MIXED_GAP + "\\d{1,4}(?:" + CARD_MIXED_GAP + "\\d{1,3})?"
            + "(?![\\d]|[./]\\d)");
    /** Country, check digits and 11 to 30 letters or digits; a space, dash, dot or line break between any two. */
    private static final Pattern IBAN = Pattern.compile(
            "(?<![A-Za-z0-9])[A-Za-z]{2} ?\\d{2}(?:(?:[ .-]|\\r?\\n)?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])");
    /**
     * US Social Security numbers: 3-2-4 digits joined by dashes or by spaces, or nine digits in one run right after
     * a label saying what they are ({@code SSN 123456789}, {@code social security no. 123456789}). Never area 000,
     * 666 or 9xx, group 00 or serial 0000: no such number is issued.
     */
    private static final Pattern SSN = Pattern.compile("(?<![\\d-])(?!000|666|9)\\d{3}(?<ssnsep>[- ])(?!00)\\d{2}"
            + "\\k<ssnsep>(?!0000)\\d{4}(?![\\d-])");
    /** The nine digits after their label (group 1). */
    private static final Pattern SSN_LABELLED = Pattern.compile("(?i)\\b(?:ssn|social security)(?: (?:number|no\\.?|#))?"
            + ":? ?((?!000|666|9)\\d{3}(?!00)\\d{2}(?!0000)\\d{4})(?!\\d)");
    /**
     * Grouped phone numbers, in the three shapes that mark a number as one (groups of digits alone do not: a list of
     * scores, years, ports or dates is written the same way):
     * <ul>
     * <li>international: {@code +} or {@code 00}, a country code (never starting with 0), an optional area code in
     * brackets ({@code +1 (415)}, {@code +44 (0)20}), then groups: the first of one to five digits, the others of
     * two to eight ({@code +33 6 12 34 56 78}, {@code +44 20 7946 0958});</li>
     * <li>national: the trunk prefix 0 and an area code (not starting with 0), maybe in brackets, then the number
     * in up to five groups of two to eight digits joined by one kind of separator ({@code 020 7946 0958},
     * {@code 030 / 1234567}, {@code 06 12 34 56 78}, {@code (0171) 1234567});</li>
     * <li>North American 3-3-4: {@code 415 555 2671}, {@code 415-555-0132}, {@code 415.555.0132},
     * {@code (415) 555-0132}, maybe after a {@code 1}; an area code never starts with 0 or 1. With two kinds of
     * separator ({@code 415 555-0132}, {@code 415/555-0132}) the exchange may not start with 0 or 1 either.</li>
     * </ul>
     * Never right after a word, a dot or dash, nor (unless after a {@code +}) right after a number and its separator:
     * the tail of a longer grouped number (8 045 311 447) is none; and never followed by more groups (an ISBN or a
     * part number has more of them) or a time's colon.
     */
    private static final Pattern PHONE = Pattern.compile("(?<![\\w+.-])(?:"
            + "(?:\\+|(?<!\\d[ ./-])00 ?)[1-9]\\d{0,2}(?:[ .-]| ?/ ?)?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,5}"
            + "(?:(?:[ .-]| ?/ ?| {2})\\d{2,8}){1,6}"
            + "|(?<!\\d[ ./-])(?:"
            + "(?:\\(0[1-9]\\d{0,3}\\) ?|0[1-9]\\d{0,3}(?:[ .-]| ?/ ?))"
            + "\\d{2,8}(?:(?<sep>[ .-])\\d{2,8}(?:\\k<sep>\\d{2,8}){0,3})?"
            + "|(?:1[ .-])?(?:\\([2-9]\\d{2}\\)[ .-]?\\d{3}[ .-]?|[2-9]\\d{2}(?<nanp>[ .-])\\d{3}\\k<nanp>"
            + "|[2-9]\\d{2}(?:[ .-]| ?/ ?)[2-9]\\d{2}[ .-])\\d{4}))"
            + "(?!\\w|[-./:]\\d)");
    /**
     * Forms without the groups above: the international one with its {@code +} (E.164, +14155552671, or with any
     * separators after the country code), an area code in brackets followed by the number at once ((415)5552671),
     * and national numbers written as one run after their trunk prefix 0 (0612345678, 07700900123) or as a Chinese
     * mobile number (13800138000). A {@code +} or a trunk prefix is what tells them from other runs of digits.
     */
    private static final Pattern PHONE_UNGROUPED = Pattern.compile("(?<![\\w+])\\+\\d(?:[ .()/-]{0,2}\\d){7,14}(?!\\w)"
            + "|(?<![\\w.-])\\(\\d{2,4}\\)\\d{6,8}(?![\\w])"
            + "|(?<![\\w.+-])(?:0[1-9]\\d{8,9}|00[1-9]\\d{7,13}|1[3-9]\\d{9})(?!\\w|[.-]\\d)");
    /**
     * A number of 7 to 15 digits (group 1) right after a label that says it is a phone number ({@code phone:
     * 555 0132}, {@code mobile 5551234567}, {@code Tel. 12 34 56 78}, {@code call me at 4155552671}): the label is
     * the mark the shapes above look for, so the digits may be written in any grouping. The label must be a word of
     * its own ({@code Tel Aviv}, {@code hotel 12} are none) and the digits follow it at once, after an optional
     * "number", "no.", "#" and a colon.
     */
    private static final Pattern PHONE_LABELLED = Pattern.compile("(?iu)(?<![\\w])(?:phone|telephone|tel\\.?|mobile"
            + "|cell ?phone|cell|fax|whats ?app|sms|call me (?:at|on)|text me (?:at|on)|reach me (?:at|on)"
            + "|telefon|handy|natel|t[e\u00e9]l[e\u00e9]phone|t[e\u00e9]l\\.?|portable|m[o\u00f3]vil"
            + "|tel[e\u00e9]fono|celular|cellulare|telefono)"
            + "(?: ?(?:number|num\\.?|no\\.?|nr\\.?|#))?(?: ?[:=#-])? ?(?:is )?"
            + "(\\+?\\(?\\d(?:[ .()/-]{0,2}\\d){6,14})(?!\\w|[.-]\\d)");
    /** HTML numeric character references ({@code &#64;}, {@code &#x40;}) and the named one of {@code @}. */
    private static final Pattern ENTITY = Pattern.compile("&#(?:[xX]([0-9a-fA-F]{1,6})|(\\d{1,7}));|&commat;");
    /** A JSON {@code \\u} escape, as it stays in text that is itself JSON inside a string (tool-call arguments). */
    private static final Pattern ESCAPE = Pattern.compile("\\\\u([0-9a-fA-F]{4})");
    /** Stands in for found data while the later patterns search: no pattern matches it or looks through it. */
    private static final char MASK = '\0';

    /** A stretch of a text to replace by a placeholder. */
    private record Span(int start, int end, String placeholder) {
    }

    /**
     * The text as a reader sees it, and for each of its characters the stretch of the written text it was read
     * from ({@code from} inclusive, {@code to} exclusive).
     */
    private record Reading(String text, int[] from, int[] to) {

        Span written(Span read) {
            return new Span(from[read.start()], to[read.end() - 1], read.placeholder());
        }
    }

    /**
     * A text being searched, where what is found is masked at once. The matcher reads it as it changes, which is
     * safe since it keeps its length; an array rather than a StringBuilder, which the regex engine reads slower.
     */
    private static final class Work implements CharSequence {

        private final char[] chars;

        Work(String text) {
            this.chars = text.toCharArray();
        }

        @Override
        public int length() {
            return chars.length;
        }

        @Override
        public char charAt(int index) {
            return chars[index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(chars, start, end - start);
        }

        @Override
        public String toString() {
            return new String(chars);
        }
    }

    private interface Check {
        boolean holds(String match);
    }

    @Override
    public String apply(String text) {
        return text.isEmpty() ? text : replace(text, spans(text));
    }

    /**
     * Pieces of one text (a message's text parts, which a model reads one after the other) redacted as that text:
     * data split across pieces ({@code "jane@"}, {@code "example.com"}) is found. Each piece keeps its place; a
     * placeholder stands where its datum starts, and the rest of the datum is taken out of the pieces it runs on
     * into (which may be left empty).
     */
    public List<String> applyJoined(List<String> pieces) {
        String joined = String.join("", pieces);
        List<Span> spans = joined.isEmpty() ? List.of() : spans(joined);
        List<String> out = new ArrayList<>(pieces.size());
        int offset = 0;
        for (String piece : pieces) {
            int end = offset + piece.length();
            StringBuilder clean = new StringBuilder(piece.length());
            int at = offset;
            for (Span span : spans) {
                if (span.end() <= at || span.start() >= end) {
                    continue;
                }
                if (span.start() >= at) {
                    clean.append(joined, at, span.start()).append(span.placeholder());
                }
                at = Math.min(span.end(), end);
            }
            out.add(clean.append(joined, at, end).toString());
            offset = end;
        }
        return out;
    }

    /** What to replace in {@code text} (not empty), in order, none overlapping. */
    private static List<Span> spans(String text) {
        List<Span> spans = find(text);
        // Data written another way must not hide: escapes that a JSON text inside a string keeps (an @ written as
        // its escape), HTML character references, compatibility forms (fullwidth ＠ and digits), digits of other
        // scripts, look-alike separators and invisible characters inside. The text is searched as a reader sees it
        // too, but only to find: what is found there is replaced in the text as written, and everything else (x²,
        // ½, ﬁ, emoji joiners, the Persian zero-width non-joiner) goes upstream unchanged.
        Reading reading = readsAsWritten(text) ? null : read(text);
        if (reading != null && !reading.text().equals(text)) {
            for (Span span : find(reading.text())) {
                spans.add(reading.written(span));
            }
        }
        return merged(spans);
    }

    /** Spans found both ways that overlap become one, named after the longer (one address seen from its cut on). */
    private static List<Span> merged(List<Span> spans) {
        spans.sort(Comparator.comparingInt(Span::start).thenComparing(Comparator.comparingInt(Span::end).reversed()));
        List<Span> merged = new ArrayList<>(spans.size());
        for (Span span : spans) {
            Span last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last == null || span.start() >= last.end()) {
                merged.add(span);
            } else if (span.end() > last.end()) {
                String placeholder = span.end() - span.start() > last.end() - last.start()
                        ? span.placeholder() : last.placeholder();
                merged.set(merged.size() - 1, new Span(last.start(), span.end(), placeholder));
            }
        }
        return merged;
    }

    private static String replace(String text, List<Span> spans) {
        if (spans.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int last = 0;
        for (Span span : spans) {
            out.append(text, last, span.start()).append(span.placeholder());
            last = span.end();
        }
        return out.append(text, last, text.length()).toString();
    }

    /**
     * Every piece of personal data in a text, each kind searched with what is already found masked, so a card
     * number is not read again as a phone number.
     */
    private static List<Span> find(String text) {
        Work work = new Work(text);
        List<Span> spans = new ArrayList<>();
        search(work, EMAIL_QUOTED_OR_LITERAL, "[email]", match -> true, spans);
        search(work, EMAIL, "[email]", PiiRedactor::address, spans);
        search(work, CARD, "[card]", PiiRedactor::card, spans);
        search(work, CARD_GROUPED, "[card]", PiiRedactor::card, spans);
        search(work, CARD_MIXED, "[card]", PiiRedactor::card, spans);
        searchIbans(work, spans);
        search(work, SSN, "[ssn]", match -> true, spans);
        Matcher labelled = SSN_LABELLED.matcher(work);
        while (labelled.find()) {
            found(work, new Span(labelled.start(1), labelled.end(1), "[ssn]"), spans);
        }
        search(work, PHONE, "[phone]", PiiRedactor::groupedPhone, spans);
        search(work, PHONE_UNGROUPED, "[phone]", PiiRedactor::phoneLength, spans);
        Matcher labelledPhone = PHONE_LABELLED.matcher(work);
        while (labelledPhone.find()) {
            found(work, new Span(labelledPhone.start(1), labelledPhone.end(1), "[phone]"), spans);
        }
        return spans;
    }

    /**
     * A match that is refused is looked past by one character, so data right after a lookalike is still found; one
     * that is accepted is masked at once, as its placeholder would stand there.
     */
    private static void search(Work work, Pattern pattern, String placeholder, Check check, List<Span> spans) {
        Matcher matcher = pattern.matcher(work);
        int from = 0;
        while (from < work.length() && matcher.find(from)) {
            if (!check.holds(matcher.group())) {
                from = matcher.start() + 1;
                continue;
            }
            from = matcher.end();
            found(work, new Span(matcher.start(), from, placeholder), spans);
        }
    }

    private static void found(Work work, Span span, List<Span> spans) {
        for (int i = span.start(); i < span.end(); i++) {
            work.chars[i] = MASK;
        }
        spans.add(span);
    }

    /**
     * IBANs: a candidate may run on into the words after it (letters and digits in groups are what an IBAN is made
     * of), so when the whole candidate fails the checksum, its prefixes ending before a separator are tried, longest
     * first.
     */
    private static void searchIbans(Work work, List<Span> spans) {
        Matcher matcher = IBAN.matcher(work);
        int from = 0;
        while (from < work.length() && matcher.find(from)) {
            int length = validIbanLength(work, matcher.start(), matcher.end());
            if (length == 0) {
                from = matcher.start() + 1;
                continue;
            }
            from = matcher.start() + length;
            found(work, new Span(matcher.start(), from, "[iban]"), spans);
        }
    }

    private static boolean ibanSeparator(char c) {
        return c == ' ' || c == '-' || c == '.' || c == '\n' || c == '\r';
    }

    /** An IBAN's letter or digit as mod 97 reads it: digits as themselves, letters as 10 (A) to 35 (Z). */
    private static int ibanValue(char c) {
        return c <= '9' ? c - '0' : Character.toUpperCase(c) - 'A' + 10;
    }

    /**
     * The length of the longest IBAN in {@code text[start, end)} (a match of {@link #IBAN}) that starts at its
     * start and ends at its end or right before one of its separators, at least 15 characters long; 0 when there is
     * none. ISO 13616's check: the number with its first four characters moved to the end, letters as two digits,
     * leaves 1 modulo 97 — worked out for every such end in one pass: (rest × 10^digits(head) + head) mod 97.
     */
    private static int validIbanLength(CharSequence text, int start, int end) {
        int head = 0;
        int headScale = 1;
        int i = start;
        for (int seen = 0; i < end && seen < 4; i++) {
            char c = text.charAt(i);
            if (!ibanSeparator(c)) {
                int value = ibanValue(c);
                int scale = value > 9 ? 100 : 10;
                head = (head * scale + value) % 97;
                headScale = headScale * scale % 97;
                seen++;
            }
        }
        int rest = 0;
        int longest = 0;
        for (; i <= end; i++) {
            char c = i < end ? text.charAt(i) : ' ';
            if (ibanSeparator(c)) {
                // Before the first character of a separator (\r\n stays whole after the IBAN).
                if (!ibanSeparator(text.charAt(i - 1)) && i - start >= 15 && (rest * headScale + head) % 97 == 1) {
                    longest = i - start;
                }
            } else {
                int value = ibanValue(c);
                rest = (rest * (value > 9 ? 100 : 10) + value) % 97;
            }
        }
        return longest;
    }

    /**
     * The text as a reader sees it: NFKC (fullwidth and other compatibility forms to their plain ones), decimal
     * digits of any script as ASCII digits, look-alike spaces and dashes as ASCII ones, invisible format characters
     * (Unicode category Cf: zero-width spaces and joiners, soft hyphens, word joiners, which split what a reader sees
     * as one address or number) as nothing, and {@code \\u} escapes and character references of letters, digits and
     * {@code @._%+-} decoded. It is read a character with its combining marks (or an escape, or a reference) at a
     * time, so each character read is known to come from one such stretch of the written text.
     */
    private static Reading read(String text) {
        int n = text.length();
        boolean normalised = Normalizer.isNormalized(text, Normalizer.Form.NFKC);
        Matcher escape = text.indexOf('\\') >= 0 ? ESCAPE.matcher(text) : null;
        Matcher entity = text.indexOf('&') >= 0 ? ENTITY.matcher(text) : null;
        StringBuilder read = new StringBuilder(n);
        int[] from = new int[n + 16];
        int[] to = new int[n + 16];
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            Matcher reference = c == '\\' ? readableAt(escape, i, n) : c == '&' ? readableAt(entity, i, n) : null;
            int end = reference != null ? reference.end() : i + Character.charCount(text.codePointAt(i));
            while (reference == null && end < n && isMark(text.codePointAt(end))) {
                end += Character.charCount(text.codePointAt(end));
            }
            // Most characters read as themselves: no string is made for them.
            CharSequence unit = text;
            int k = i;
            int unitEnd = end;
            if (reference != null || !normalised && (end > i + 1 || c >= 0x80)) {
                unit = Normalizer.normalize(reference != null ? Character.toString(referenced(reference))
                        : text.substring(i, end), Normalizer.Form.NFKC);
                k = 0;
                unitEnd = unit.length();
            }
            if (read.length() + unitEnd - k > from.length) {
                from = Arrays.copyOf(from, 2 * (read.length() + unitEnd - k));
                to = Arrays.copyOf(to, from.length);
            }
            while (k < unitEnd) {
                int cp = Character.codePointAt(unit, k);
                k += Character.charCount(cp);
                if (Character.getType(cp) == Character.FORMAT) {
                    continue;
                }
                int first = read.length();
                if (cp <= Character.MAX_VALUE) {
                    read.append(plain((char) cp));
                } else if (Character.isDigit(cp)) {
                    read.append((char) ('0' + Character.digit(cp, 10)));
                } else {
                    read.appendCodePoint(cp);
                }
                for (int j = first; j < read.length(); j++) {
                    from[j] = i;
                    to[j] = end;
                }
            }
            i = end;
        }
        return new Reading(read.toString(), from, to);
    }

    /** Whether a text surely reads as it is written (most prompts), so that no reading of it need be made. */
    private static boolean readsAsWritten(String text) {
        if (text.indexOf('\\') >= 0 || text.indexOf('&') >= 0 || !Normalizer.isNormalized(text, Normalizer.Form.NFKC)) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80 && (plain(c) != c || Character.isSurrogate(c) || Character.getType(c) == Character.FORMAT)) {
                return false;
            }
        }
        return true;
    }

    /** What an escape or a reference may stand for and still be read: letters, digits and {@code @._%+-}. */
    private static boolean readable(int code) {
        return Character.isValidCodePoint(code) && (Character.isLetterOrDigit(code) || "@._%+-".indexOf(code) >= 0);
    }

    /** The escape or reference (its matcher) at {@code index} when it stands for a readable character, or null. */
    private static Matcher readableAt(Matcher matcher, int index, int length) {
        return matcher != null && matcher.region(index, length).lookingAt() && readable(referenced(matcher))
                ? matcher : null;
    }

    /** The character an escape or a reference stands for (6 hex or 7 decimal digits at most: no overflow). */
    private static int referenced(Matcher reference) {
        String hex = reference.group(1);
        if (reference.pattern() == ESCAPE || hex != null) {
            return Integer.parseInt(hex, 16);
        }
        String decimal = reference.group(2);
        return decimal != null ? Integer.parseInt(decimal) : '@';
    }

    private static boolean isMark(int codePoint) {
        int type = Character.getType(codePoint);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                || type == Character.ENCLOSING_MARK;
    }

    /** Digits of other scripts as ASCII ones, no-break spaces as a space, hyphens, dashes and minus as a dash. */
    private static char plain(char c) {
        if (c > '9' && Character.isDigit(c)) {
            return (char) ('0' + Character.digit(c, 10));
        }
        if (c == '\u00A0' || c == '\u2007' || c == '\u202F') {
            return ' ';
        }
        if (c >= '\u2010' && c <= '\u2015' || c == '\u2212') {
            return '-';
        }
        return c;
    }

    /** An address unless its top-level label is a file extension (a file name like {@code icon@2x.png}). */
    private static boolean address(String match) {
        return !FILE_EXTENSIONS.contains(match.substring(match.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT));
    }

    /**
     * A card number is what a card network issues: its first digit names the industry, and only 2 to 6 (Mastercard
     * 2-series, American Express, Diners, JCB, Visa, Mastercard, Discover, UnionPay, Maestro) are payment cards; it
     * passes the Luhn check. Screen sizes or years grouped in fours pass the Luhn check one time in ten, so the first
     * digit matters.
     */
    private static boolean card(String match) {
        return match.charAt(0) >= '2' && match.charAt(0) <= '6' && luhn(match);
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

    /**
     * A date, a time, an IPv4 address or a number grouped in thousands is written in groups of digits too: dates
     * ({@code 01.02.2024 1030}) and times ({@code 10:30}, which the pattern stops before) are the commonest text of
     * logs, so the shapes that are almost never a phone number are left alone.
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
