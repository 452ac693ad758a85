package dev.tollgate.domain.apikey;

import java.util.Objects;
import java.util.UUID;

/** Internal identifier of a regular API key (the external one is its {@code KeyHash}). */
public record ApiKeyId(UUID value) {

    public ApiKeyId {
        Objects.requireNonNull(value, "api key id");
    }

    public static ApiKeyId newId() {
        return new ApiKeyId(UUID.randomUUID());
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
