package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.DomainRuleViolation;
import java.util.Locale;
import java.util.Objects;

/**
 * Value object: a password as a person typed it. It never shows itself ({@link #toString()} is masked); only the
 * password hasher reads it, through {@link #reveal()}.
 */
public final class Password {

    /** Shortest password accepted at sign-up, in characters (code points). */
    public static final int MIN_LENGTH = 10;
    /** Longest password accepted at sign-up, in characters (code points). */
    public static final int MAX_LENGTH = 256;
    /** Longest text read as a password at log-in: anything longer cannot be a stored password, so it is cut. */
    private static final int MAX_GIVEN_CHARS = MAX_LENGTH * 2;

    private final String text;

    private Password(String text) {
        this.text = text;
    }

    /**
     * A new password chosen at sign-up: 10–256 characters, not the account's own e-mail address (in any letter
     * case), and not made only of white space.
     */
    public static Password choose(String text, Email email) {
        Objects.requireNonNull(email);
        if (text == null || text.isEmpty()) {
            throw new DomainRuleViolation("password", "choose a password of at least " + MIN_LENGTH + " characters");
        }
        int length = text.codePointCount(0, text.length());
        if (length < MIN_LENGTH) {
            throw new DomainRuleViolation("password", "choose a password of at least " + MIN_LENGTH + " characters");
        }
        if (length > MAX_LENGTH) {
            throw new DomainRuleViolation("password", "a password has at most " + MAX_LENGTH + " characters");
        }
        if (text.codePoints().allMatch(Password::invisible)) {
            throw new DomainRuleViolation("password", "a password cannot be only spaces or invisible characters");
        }
        if (text.strip().toLowerCase(Locale.ROOT).equals(email.value())) {
            throw new DomainRuleViolation("password", "a password cannot be your e-mail address");
        }
        return new Password(text);
    }

    /** A password given at log-in, checked against the stored hash only (over-long input is cut, never refused). */
    public static Password given(String text) {
        String value = text == null ? "" : text;
        return new Password(value.length() > MAX_GIVEN_CHARS ? value.substring(0, MAX_GIVEN_CHARS) : value);
    }

    /** The typed text, for the password hasher only. */
    public String reveal() {
        return text;
    }

    @Override
    public String toString() {
        return "Password[***]";
    }

    /**
     * Spaces of every kind (no-break and ideographic ones too), controls such as NUL, and format characters such as
     * the zero-width space: a password of nothing else looks empty wherever it is typed or shown.
     */
    private static boolean invisible(int codePoint) {
        int type = Character.getType(codePoint);
        return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint) || type == Character.CONTROL
                || type == Character.FORMAT
                // Marks with nothing to sit on (combining accents, variation selectors) and letters that are drawn
                // as blanks (the Hangul fillers, the braille blank), found by an audit.
                || type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
                || codePoint == 0x115F || codePoint == 0x1160 || codePoint == 0x3164 || codePoint == 0xFFA0
                || codePoint == 0x2800;
    }
}
