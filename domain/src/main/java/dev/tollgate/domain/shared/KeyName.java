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
        value = value.strip();
        if (value.isEmpty()) {
            throw new DomainRuleViolation("name", "name must not be empty");
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

    @Override
    public String toString() {
        return value;
    }
}
