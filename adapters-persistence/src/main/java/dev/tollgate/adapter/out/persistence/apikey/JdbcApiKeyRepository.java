package dev.tollgate.adapter.out.persistence.apikey;

import dev.tollgate.adapter.out.persistence.common.KeyLookups;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;

/** Persistence adapter: {@link ApiKeyRepository} on PostgreSQL. */
@Singleton
public class JdbcApiKeyRepository implements ApiKeyRepository {

    private final ApiKeyRowRepository rows;

    private final KeyLookups lookups;

    JdbcApiKeyRepository(ApiKeyRowRepository rows, KeyLookups lookups) {
        this.rows = rows;
        this.lookups = lookups;
    }

    @Override
    public void insert(ApiKey key) {
        rows.save(toRow(key));
    }

    @Override
    public Optional<ApiKey> findByHash(KeyHash hash) {
        return lookups.bounded(() -> rows.findByKeyHash(hash.hex())).map(JdbcApiKeyRepository::toDomain);
    }

    @Override
    public Optional<ApiKey> lockByHash(KeyHash hash) {
        return rows.lockByKeyHash(hash.hex()).map(JdbcApiKeyRepository::toDomain);
    }

    @Override
    public List<ApiKey> listPage(AccountId accountId, boolean includeDisabled, int offset, int limit) {
        return rows.listPage(accountId.value(), includeDisabled, offset, limit).stream()
                .map(JdbcApiKeyRepository::toDomain)
                .toList();
    }

    @Override
    public void update(ApiKey key) {
        ApiKeyRow row = toRow(key);
        long updated = rows.updateState(row.id(), row.name(), row.disabled(), row.limitMicros(), row.limitReset(),
                row.expiresAt(), row.updatedAt(), row.deletedAt());
        if (updated != 1) {
            throw new IllegalStateException("api key " + key.hash() + " is not stored");
        }
    }

    private static ApiKeyRow toRow(ApiKey key) {
        SpendLimit limit = key.limit().orElse(null);
        return new ApiKeyRow(key.id().value(), key.accountId().value(), key.hash().hex(), key.label(),
                key.name().value(), key.disabled(), limit == null ? null : limit.amount().micros(),
                limit == null ? null : limit.resetPeriod().map(LimitReset::wireName).orElse(null),
                key.expiresAt().orElse(null), key.createdAt(), key.updatedAt(), key.deletedAt().orElse(null));
    }

    private static ApiKey toDomain(ApiKeyRow row) {
        SpendLimit limit = null;
        if (row.limitMicros() != null) {
            LimitReset reset = row.limitReset() == null ? null : LimitReset.fromWireName(row.limitReset())
                    .orElseThrow(() -> new IllegalStateException("unknown limit_reset " + row.limitReset()));
            limit = new SpendLimit(Usd.ofMicros(row.limitMicros()), reset);
        }
        return ApiKey.restore(new ApiKeyId(row.id()), new AccountId(row.accountId()), new KeyHash(row.keyHash()),
                row.label(), new KeyName(row.name()), row.disabled(), limit, row.expiresAt(), row.createdAt(),
                row.updatedAt(), row.deletedAt());
    }
}
