package dev.tollgate.adapter.out.persistence.apikey;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;
import java.util.UUID;

/** Row of table {@code api_key} (its {@code seq} column is generated and only orders listings). */
@MappedEntity("api_key")
record ApiKeyRow(@Id UUID id, UUID accountId, String keyHash, String label, String name, boolean disabled,
        @Nullable Long limitMicros, @Nullable String limitReset, @Nullable Instant expiresAt, Instant createdAt,
        Instant updatedAt, @Nullable Instant deletedAt) {
}
