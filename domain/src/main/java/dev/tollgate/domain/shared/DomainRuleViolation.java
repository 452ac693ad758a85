package dev.tollgate.domain.shared;

/**
 * A broken business rule, with the request field it concerns (or {@code null}) and a message a person can act on.
 * The HTTP adapter turns it into a 400.
 */
public class DomainRuleViolation extends RuntimeException {

    private final String field;

    public DomainRuleViolation(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
