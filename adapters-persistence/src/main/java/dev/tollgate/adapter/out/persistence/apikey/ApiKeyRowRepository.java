package dev.tollgate.adapter.out.persistence.apikey;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Micronaut Data repository over {@code api_key}. */
@JdbcRepository(dialect = Dialect.POSTGRES)
interface ApiKeyRowRepository extends GenericRepository<ApiKeyRow, UUID> {

    ApiKeyRow save(ApiKeyRow row);

    Optional<ApiKeyRow> findByKeyHash(String keyHash);

    @Query("SELECT * FROM api_key WHERE key_hash = :keyHash FOR UPDATE")
    Optional<ApiKeyRow> lockByKeyHash(String keyHash);

    @Query("SELECT * FROM api_key WHERE account_id = :accountId AND deleted_at IS NULL "
            + "AND (:includeDisabled OR NOT disabled) ORDER BY created_at DESC, seq DESC LIMIT :limit OFFSET :offset")
    List<ApiKeyRow> listPage(UUID accountId, boolean includeDisabled, int offset, int limit);

    @Query("UPDATE api_key SET name = :name, disabled = :disabled, limit_micros = :limitMicros, "
            + "limit_reset = :limitReset, expires_at = :expiresAt, updated_at = :updatedAt, deleted_at = :deletedAt "
            + "WHERE id = :id")
    long updateState(UUID id, String name, boolean disabled, @Nullable Long limitMicros, @Nullable String limitReset,
            @Nullable Instant expiresAt, Instant updatedAt, @Nullable Instant deletedAt);
}
