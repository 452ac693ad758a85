package dev.tollgate.domain.managementkey;

import java.util.Objects;
import java.util.UUID;

/** Internal identifier of a management key. */
public record ManagementKeyId(UUID value) {

    public ManagementKeyId {
        Objects.requireNonNull(value, "management key id");
    }

    public static ManagementKeyId newId() {
        return new ManagementKeyId(UUID.randomUUID());
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
