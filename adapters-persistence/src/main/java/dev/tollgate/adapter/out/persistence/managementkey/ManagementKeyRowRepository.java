package dev.tollgate.adapter.out.persistence.managementkey;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Micronaut Data repository over {@code management_key}. */
@JdbcRepository(dialect = Dialect.POSTGRES)
interface ManagementKeyRowRepository extends GenericRepository<ManagementKeyRow, UUID> {

    @Query("INSERT INTO management_key (id, account_id, name, access, key_hash, label, disabled, expires_at, "
            + "created_at, updated_at) VALUES (:id, :accountId, :name, :access, :keyHash, :label, :disabled, "
            + ":expiresAt, :createdAt, :updatedAt) ON CONFLICT (account_id, name) DO NOTHING")
    long insertIfNameFree(UUID id, UUID accountId, String name, String access, String keyHash, String label,
            boolean disabled, @Nullable Instant expiresAt, Instant createdAt, Instant updatedAt);

    Optional<ManagementKeyRow> findByKeyHash(String keyHash);

    Optional<ManagementKeyRow> findByAccountIdAndName(UUID accountId, String name);

    Optional<ManagementKeyRow> findById(UUID id);

    @Query("DELETE FROM management_key WHERE id = :id")
    long deleteById(UUID id);

    @Query("UPDATE management_key SET last_used_at = :at WHERE id = :id "
            + "AND (last_used_at IS NULL OR last_used_at <= :minuteBefore)")
    long recordUse(UUID id, Instant at, Instant minuteBefore);

    @Query("SELECT count(*) FROM management_key WHERE account_id = :accountId AND NOT disabled "
            + "AND (expires_at IS NULL OR expires_at > :now)")
    long countActive(UUID accountId, Instant now);

    @Query("SELECT * FROM management_key WHERE account_id = :accountId ORDER BY created_at DESC, seq DESC")
    List<ManagementKeyRow> listByAccount(UUID accountId);

    @Query("UPDATE management_key SET disabled = :disabled, updated_at = :updatedAt WHERE id = :id")
    long updateState(UUID id, boolean disabled, Instant updatedAt);
}
