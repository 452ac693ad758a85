package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** In-memory fake of {@link ManagementKeyRepository}. */
public class InMemoryManagementKeyRepository implements ManagementKeyRepository {

    private final List<ManagementKey> keys = new ArrayList<>();

    @Override
    public synchronized boolean insert(ManagementKey key) {
        if (findByName(key.accountId(), key.name()).isPresent()) {
            return false;
        }
        keys.add(copy(key));
        return true;
    }

    @Override
    public synchronized Optional<ManagementKey> findByHash(KeyHash hash) {
        return keys.stream().filter(k -> k.hash().equals(hash)).findFirst().map(InMemoryManagementKeyRepository::copy);
    }

    @Override
    public synchronized Optional<ManagementKey> findByName(AccountId accountId, KeyName name) {
        return keys.stream()
                .filter(k -> k.accountId().equals(accountId) && k.name().equals(name))
                .findFirst()
                .map(InMemoryManagementKeyRepository::copy);
    }

    @Override
    public synchronized long countActive(AccountId accountId, Instant now) {
        return keys.stream()
                .filter(k -> k.accountId().equals(accountId) && k.state(now) == ManagementKeyState.ACTIVE)
                .count();
    }

    @Override
    public synchronized List<ManagementKey> listByAccount(AccountId accountId) {
        List<ManagementKey> newestFirst = new ArrayList<>(keys);
        Collections.reverse(newestFirst);
        return newestFirst.stream()
                .filter(k -> k.accountId().equals(accountId))
                .map(InMemoryManagementKeyRepository::copy)
                .toList();
    }

    @Override
    public synchronized void update(ManagementKey key) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).id().equals(key.id())) {
                keys.set(i, copy(key));
                return;
            }
        }
        throw new IllegalStateException("no management key " + key.id());
    }

    @Override
    public synchronized Optional<ManagementKey> findById(ManagementKeyId id) {
        return keys.stream().filter(k -> k.id().equals(id)).findFirst().map(InMemoryManagementKeyRepository::copy);
    }

    @Override
    public synchronized boolean delete(ManagementKeyId id) {
        return keys.removeIf(k -> k.id().equals(id));
    }

    @Override
    public synchronized void recordUse(ManagementKeyId id, Instant at) {
        Instant millis = Timestamps.millis(at);
        for (int i = 0; i < keys.size(); i++) {
            ManagementKey k = keys.get(i);
            if (k.id().equals(id)) {
                Instant last = k.lastUsedAt().orElse(null);
                if (last == null || !last.isAfter(millis.minusSeconds(60))) {
                    keys.set(i, ManagementKey.restore(k.id(), k.accountId(), k.name(), k.access(), k.hash(),
                            k.label(), k.disabled(), k.expiresAt().orElse(null), k.createdAt(), k.updatedAt(),
                            millis));
                }
                return;
            }
        }
    }

    private static ManagementKey copy(ManagementKey k) {
        return ManagementKey.restore(k.id(), k.accountId(), k.name(), k.access(), k.hash(), k.label(),
                k.disabled(), k.expiresAt().orElse(null), k.createdAt(), k.updatedAt(), k.lastUsedAt().orElse(null));
    }
}
