package dev.tollgate.adapter.out.persistence.account;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;
import java.util.UUID;

/** Row of table {@code account}. */
@MappedEntity("account")
record AccountRow(@Id UUID id, String email, boolean emailVerified, long balanceMicros, Instant createdAt,
        Instant updatedAt) {
}
