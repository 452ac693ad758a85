package dev.tollgate.domain.shared;

/**
 * Value object: the display name of a key. §4.1 rule 9 leaves it open; Tollgate requires a name of
 * 1 to {@value #MAX_LENGTH} characters after trimming, with no control characters (docs/decisions.md).
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
    }

    @Override
    public String toString() {
        return value;
    }
}
