package dev.tollgate.domain.shared;

/**
 * Value object: the display name of a key. §4.1 rule 9 leaves it open; Tollgate requires a name of
 * 1 to {@value #MAX_LENGTH} characters after trimming, with no control characters or unpaired surrogates
 * (docs/decisions.md).
 */
public record KeyName(String value) {

    public static final int MAX_LENGTH = 128;

    public KeyName {
        if (value == null) {
            throw new DomainRuleViolation("name", "name is required");
        }
        if (value.isBlank()) {
            throw new DomainRuleViolation("name", "name must not be empty");
        }
        // Embeddings, overrides and isolates reorder the text around them: a name could show as another's. Looked
        // for before trimming, which would take one at either end away as invisible.
        if (value.codePoints().anyMatch(c -> c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069)) {
            throw new DomainRuleViolation("name", "name must not contain bidirectional control characters "
                    + "(U+202A to U+202E, U+2066 to U+2069)");
        }
        value = trimmed(value);
        if (value.isEmpty()) {
            throw new DomainRuleViolation("name", "name must not be empty (it holds only spaces or invisible "
                    + "characters)");
        }
        if (value.codePointCount(0, value.length()) > MAX_LENGTH) {
            throw new DomainRuleViolation("name", "name must be at most " + MAX_LENGTH + " characters");
        }
        if (value.codePoints().anyMatch(Character::isISOControl)) {
            throw new DomainRuleViolation("name", "name must not contain control characters");
        }
        // An unpaired UTF-16 surrogate (a JSON escape of D800 with no low half after it) is no character: it
        // cannot be stored as text and would come back as something else.
        if (value.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            throw new DomainRuleViolation("name", "name must be valid Unicode text (it holds an unpaired surrogate "
                    + "escape such as \\ud800)");
        }
    }

    /**
     * A name as a caller chose it: the rules above, and no key in it. A name is shown to every reader of the account's
     * keys (read-only management keys, the dashboard), while a raw key is shown once (reliability goal G10): a name
     * holding a key, or a piece of one long enough to matter, is refused rather than stored. Names read back from
     * storage are built with the constructor, so one stored before this rule still reads.
     */
    public static KeyName chosen(String value) {
        KeyName name = new KeyName(value);
        if (RawKey.pieceIn(name.value)) {
            throw new DomainRuleViolation("name", "name must not contain an API key (gp- or gpm- followed by "
                    + RawKey.PIECE_LENGTH + " or more letters or digits): a name is shown to everyone who can read "
                    + "the account's keys, a key only once; name the key after what it is for");
        }
        return name;
    }

    /**
     * Without spaces of any kind around it (no-break and zero-width ones too, which {@link String#strip} keeps): a
     * name padded with them would show as another key's.
     */
    private static String trimmed(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && invisible(value.codePointAt(start))) {
            start += Character.charCount(value.codePointAt(start));
        }
        while (end > start && invisible(value.codePointBefore(end))) {
            end -= Character.charCount(value.codePointBefore(end));
        }
        return value.substring(start, end);
    }

    /** A space of any kind (no-break, ideographic, …) or a character that shows nothing (zero-width, format). */
    private static boolean invisible(int c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.getType(c) == Character.FORMAT;
    }

    @Override
    public String toString() {
        return value;
    }
}
