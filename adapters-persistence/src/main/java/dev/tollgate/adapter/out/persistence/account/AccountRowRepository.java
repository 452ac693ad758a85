package dev.tollgate.adapter.out.persistence.account;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** Micronaut Data repository over {@code account}. */
@JdbcRepository(dialect = Dialect.POSTGRES)
interface AccountRowRepository extends GenericRepository<AccountRow, UUID> {

    @Query("INSERT INTO account (id, email, email_verified, balance_micros, created_at, updated_at) "
            + "VALUES (:id, :email, :emailVerified, 0, :createdAt, :createdAt) ON CONFLICT DO NOTHING")
    long insertIfEmailFree(UUID id, String email, boolean emailVerified, Instant createdAt);

    Optional<AccountRow> findById(UUID id);

    Optional<AccountRow> findByEmail(String email);

    @Query("SELECT * FROM account WHERE id = :id FOR UPDATE")
    Optional<AccountRow> lockById(UUID id);

    @Query("UPDATE account SET email_verified = true, updated_at = :now WHERE id = :id")
    long markEmailVerified(UUID id, Instant now);
}
