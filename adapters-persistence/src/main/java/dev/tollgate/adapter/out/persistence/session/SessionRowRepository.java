package dev.tollgate.adapter.out.persistence.session;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** Micronaut Data repository over {@code dashboard_session}. */
@JdbcRepository(dialect = Dialect.POSTGRES)
interface SessionRowRepository extends GenericRepository<SessionRow, String> {

    @Query("INSERT INTO dashboard_session (token_hash, account_id, csrf_token, created_at, last_seen_at, expires_at) "
            + "VALUES (:tokenHash, :accountId, :csrfToken, :createdAt, :lastSeenAt, :expiresAt)")
    void insert(String tokenHash, UUID accountId, String csrfToken, Instant createdAt, Instant lastSeenAt,
            Instant expiresAt);

    Optional<SessionRow> findByTokenHash(String tokenHash);

    @Query("UPDATE dashboard_session SET last_seen_at = :lastSeenAt WHERE token_hash = :tokenHash "
            + "AND last_seen_at < :lastSeenAt")
    long touch(String tokenHash, Instant lastSeenAt);

    @Query("DELETE FROM dashboard_session WHERE token_hash = :tokenHash")
    long deleteByTokenHash(String tokenHash);

    @Query("DELETE FROM dashboard_session WHERE account_id = :accountId")
    long deleteByAccountId(UUID accountId);

    @Query("DELETE FROM dashboard_session WHERE account_id = :accountId AND (expires_at <= :now "
            + "OR last_seen_at < :idleBefore)")
    long deleteEnded(UUID accountId, Instant idleBefore, Instant now);
}
