package dev.tollgate.domain.completion;

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

    private static final Pattern EMAIL = Pattern.compile(
            "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])");
    private static final Pattern CARD = Pattern.compile("(?<![\\d-])(?:\\d[ -]?){12,18}\\d(?!\\d)");
    private static final Pattern IBAN = Pattern.compile(
            "(?<![A-Za-z0-9])[A-Z]{2}\\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])");
    private static final Pattern SSN = Pattern.compile("(?<![\\d-])\\d{3}-\\d{2}-\\d{4}(?![\\d-])");
    private static final Pattern PHONE = Pattern.compile(
            "(?<![\\w+])(?:\\+\\d{1,3}[ .-]?)?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{2,5}(?:[ .-]?\\d{2,5}){1,5}(?![\\w])");

    @Override
    public String apply(String text) {
        if (text.isEmpty()) {
            return text;
        }
        String result = EMAIL.matcher(text).replaceAll("[email]");
        result = replace(result, CARD, "[card]", PiiRedactor::luhn);
        result = replace(result, IBAN, "[iban]", PiiRedactor::iban);
        result = SSN.matcher(result).replaceAll("[ssn]");
        return replace(result, PHONE, "[phone]", PiiRedactor::phoneLength);
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
        String compact = match.replace(" ", "");
        String rearranged = compact.substring(4) + compact.substring(0, 4);
        int remainder = 0;
        for (int i = 0; i < rearranged.length(); i++) {
            char c = rearranged.charAt(i);
            int value = Character.isDigit(c) ? c - '0' : c - 'A' + 10;
            remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
        }
        return remainder == 1;
    }

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
