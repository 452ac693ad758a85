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

    /**
     * The columns of an account, its balance as what it can still spend: the balance at rest plus what instances
     * hold in slices of it, less the holds of requests in flight (migration V3).
     */
    String SELECT = "SELECT a.id, a.email, a.email_verified, a.balance_micros + a.reserved_micros - "
            + "(SELECT coalesce(sum(h.amount_micros), 0) FROM request_hold h WHERE h.account_id = a.id) "
            + "AS balance_micros, a.created_at, a.updated_at FROM account a ";

    @Query(SELECT + "WHERE a.id = :id")
    Optional<AccountRow> findById(UUID id);

    @Query(SELECT + "WHERE a.email = :email")
    Optional<AccountRow> findByEmail(String email);

    @Query(SELECT + "WHERE a.id = :id FOR UPDATE OF a")
    Optional<AccountRow> lockById(UUID id);

    @Query("UPDATE account SET email_verified = true, updated_at = :now WHERE id = :id")
    long markEmailVerified(UUID id, Instant now);
}
