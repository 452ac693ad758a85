package dev.tollgate.domain.catalog;

import dev.tollgate.domain.shared.DomainRuleViolation;

/** Value object: a model id as clients send it in {@code model} (§2.3) and see it in {@code GET /v1/models}. */
public record ModelId(String value) {

    public static final int MAX_LENGTH = 256;

    public ModelId {
        if (value == null || value.isBlank()) {
            throw new DomainRuleViolation("model", "model is required");
        }
        if (value.length() > MAX_LENGTH) {
            throw new DomainRuleViolation("model", "model must be at most " + MAX_LENGTH + " characters");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
