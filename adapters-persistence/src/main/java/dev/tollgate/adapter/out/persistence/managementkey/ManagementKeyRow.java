package dev.tollgate.adapter.out.persistence.managementkey;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;
import java.util.UUID;

/** Row of table {@code management_key} (its {@code seq} column is generated and only orders listings). */
@MappedEntity("management_key")
record ManagementKeyRow(@Id UUID id, UUID accountId, String name, String access, String keyHash, String label,
        boolean disabled, @Nullable Instant expiresAt, Instant createdAt, Instant updatedAt,
        @Nullable Instant lastUsedAt) {
}
