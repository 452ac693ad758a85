package dev.tollgate.adapter.out.persistence.session;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** Micronaut Data repository over {@code account_password}. */
@JdbcRepository(dialect = Dialect.POSTGRES)
interface CredentialRowRepository extends GenericRepository<CredentialRow, UUID> {

    @Query("INSERT INTO account_password (account_id, password_hash, updated_at) VALUES (:accountId, :passwordHash, "
            + ":updatedAt) ON CONFLICT (account_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, "
            + "updated_at = EXCLUDED.updated_at")
    void upsert(UUID accountId, String passwordHash, Instant updatedAt);

    Optional<CredentialRow> findByAccountId(UUID accountId);

    @Query("DELETE FROM account_password WHERE account_id = :accountId")
    void deleteByAccountId(UUID accountId);
}
