package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Sha256;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Value object: an account's e-mail address, trimmed and lower-cased so that one address is one account. The
 * shape is RFC 5321's common form: a local part without spaces, control or format characters, quotes, brackets
 * or the other specials, not starting or ending with a dot nor holding two in a row; a domain of at least two
 * dot-separated labels of letters and digits (any script: internationalised domains) with inner hyphens, and no
 * trailing dot (which would make a second account of the same mailbox).
 */
public record Email(String value) {

    private static final String LOCAL_CHAR = "[^\\s@()<>\\[\\]\\\\,;:\"\\p{Cc}\\p{Cf}\\p{Z}\\p{Cs}\\p{Co}\\p{Cn}]";
    private static final String LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}-]*[\\p{L}\\p{N}\\p{M}])?";
    private static final Pattern SHAPE = Pattern.compile(
            "(?!\\.)(?!.*\\.@)" + LOCAL_CHAR + "{1,64}@" + LABEL + "(?:\\." + LABEL + ")+");
    private static final int MAX_LENGTH = 254;

    public Email {
        if (value == null) {
            throw new DomainRuleViolation("email", "an e-mail address is required");
        }
        value = value.trim().toLowerCase(Locale.ROOT);
        if (value.length() > MAX_LENGTH || !SHAPE.matcher(value).matches() || value.substring(0, value.indexOf('@'))
                .contains("..")) {
            // The text is not quoted back: it may hold control characters meant for a log or a terminal.
            throw new DomainRuleViolation("email", "that is not an e-mail address (name@example.com)");
        }
    }

    /**
     * A stand-in for the address where it must not appear in clear (traffic-limit bucket names, which may live in
     * Redis): the first 128 bits of its SHA-256, in hex.
     */
    public String digest() {
        return digestOf(value);
    }

    /** {@link #digest()} of text typed as an address, whether or not it is one (trimmed and lower-cased first). */
    public static String digestOf(String typed) {
        String normalised = typed == null ? "" : typed.trim().toLowerCase(Locale.ROOT);
        return Sha256.hex(normalised).substring(0, 32); // 128 bits
    }

    @Override
    public String toString() {
        return value;
    }
}
