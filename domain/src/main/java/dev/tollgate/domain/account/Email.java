package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.DomainRuleViolation;
import java.util.Locale;
import java.util.regex.Pattern;

/** Value object: an account's e-mail address, trimmed and lower-cased so that one address is one account. */
public record Email(String value) {

    private static final Pattern SHAPE = Pattern.compile("[^\\s@]+@[^\\s@]+\\.[^\\s@]+");
    private static final int MAX_LENGTH = 254;

    public Email {
        if (value == null) {
            throw new DomainRuleViolation("email", "an e-mail address is required");
        }
        value = value.trim().toLowerCase(Locale.ROOT);
        if (value.length() > MAX_LENGTH || !SHAPE.matcher(value).matches()) {
            throw new DomainRuleViolation("email", "'" + value + "' is not an e-mail address");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
