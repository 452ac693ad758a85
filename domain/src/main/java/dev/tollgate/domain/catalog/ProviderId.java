package dev.tollgate.domain.catalog;

import java.util.Objects;

/** Value object: the name of a configured upstream provider (e.g. {@code simulator}, {@code openai}). */
public record ProviderId(String value) {

    public ProviderId {
        Objects.requireNonNull(value, "provider id");
        if (value.isBlank()) {
            throw new IllegalArgumentException("a provider id is not blank");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
