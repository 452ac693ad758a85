package dev.tollgate.adapter.out.persistence.session;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;
import java.util.UUID;

/** Row of table {@code dashboard_session}. */
@MappedEntity("dashboard_session")
record SessionRow(@Id String tokenHash, UUID accountId, String csrfToken, Instant createdAt, Instant lastSeenAt,
        Instant expiresAt) {
}
