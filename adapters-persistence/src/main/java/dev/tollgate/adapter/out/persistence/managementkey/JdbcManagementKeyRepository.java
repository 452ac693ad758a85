package dev.tollgate.adapter.out.persistence.managementkey;

import dev.tollgate.adapter.out.persistence.common.KeyLookups;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.Timestamps;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Persistence adapter: {@link ManagementKeyRepository} on PostgreSQL. */
@Singleton
public class JdbcManagementKeyRepository implements ManagementKeyRepository {

    private final ManagementKeyRowRepository rows;

    private final KeyLookups lookups;

    JdbcManagementKeyRepository(ManagementKeyRowRepository rows, KeyLookups lookups) {
        this.rows = rows;
        this.lookups = lookups;
    }

    @Override
    public boolean insert(ManagementKey key) {
        return rows.insertIfNameFree(key.id().value(), key.accountId().value(), key.name().value(),
                key.access().wireName(), key.hash().hex(), key.label(), key.disabled(), key.expiresAt().orElse(null),
                key.createdAt(), key.updatedAt()) == 1;
    }

    @Override
    public Optional<ManagementKey> findByHash(KeyHash hash) {
        return lookups.bounded(() -> rows.findByKeyHash(hash.hex())).map(JdbcManagementKeyRepository::toDomain);
    }

    @Override
    public Optional<ManagementKey> findByName(AccountId accountId, KeyName name) {
        return rows.findByAccountIdAndName(accountId.value(), name.value())
                .map(JdbcManagementKeyRepository::toDomain);
    }

    @Override
    public Optional<ManagementKey> findById(ManagementKeyId id) {
        return rows.findById(id.value()).map(JdbcManagementKeyRepository::toDomain);
    }

    @Override
    public boolean delete(ManagementKeyId id) {
        return rows.deleteById(id.value()) == 1;
    }

    @Override
    public void recordUse(ManagementKeyId id, Instant at) {
        Instant millis = Timestamps.millis(at);
        rows.recordUse(id.value(), millis, millis.minusSeconds(60));
    }

    @Override
    public long countActive(AccountId accountId, Instant now) {
        return rows.countActive(accountId.value(), now);
    }

    @Override
    public List<ManagementKey> listByAccount(AccountId accountId) {
        return rows.listByAccount(accountId.value()).stream().map(JdbcManagementKeyRepository::toDomain).toList();
    }

    @Override
    public void update(ManagementKey key) {
        if (rows.updateState(key.id().value(), key.disabled(), key.updatedAt()) != 1) {
            throw new IllegalStateException("management key " + key.id() + " is not stored");
        }
    }

    private static ManagementKey toDomain(ManagementKeyRow row) {
        ManagementAccess access = ManagementAccess.fromWireName(row.access())
                .orElseThrow(() -> new IllegalStateException("unknown access " + row.access()));
        return ManagementKey.restore(new ManagementKeyId(row.id()), new AccountId(row.accountId()),
                new KeyName(row.name()), access, new KeyHash(row.keyHash()), row.label(), row.disabled(),
                row.expiresAt(), row.createdAt(), row.updatedAt(), row.lastUsedAt());
    }
}
