package dev.tollgate.adapter.out.persistence.session;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;
import java.util.UUID;

/** Row of table {@code account_password}. */
@MappedEntity("account_password")
record CredentialRow(@Id UUID accountId, String passwordHash, Instant updatedAt) {
}
