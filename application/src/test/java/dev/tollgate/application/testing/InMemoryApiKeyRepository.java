package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** In-memory fake of {@link ApiKeyRepository}; stores copies so callers cannot change it behind its back. */
public final class InMemoryApiKeyRepository implements ApiKeyRepository {

    private final List<ApiKey> keys = new ArrayList<>(); // insertion order

    @Override
    public synchronized void insert(ApiKey key) {
        if (keys.stream().anyMatch(k -> k.hash().equals(key.hash()) || k.id().equals(key.id()))) {
            throw new IllegalStateException("duplicate key " + key.hash());
        }
        keys.add(copy(key));
    }

    @Override
    public synchronized Optional<ApiKey> findByHash(KeyHash hash) {
        return keys.stream().filter(k -> k.hash().equals(hash)).findFirst().map(InMemoryApiKeyRepository::copy);
    }

    /** Any stored key with this id (a fake's helper, e.g. for joining ledger rows to key names). */
    public synchronized Optional<ApiKey> findById(ApiKeyId id) {
        return keys.stream().filter(k -> k.id().equals(id)).findFirst().map(InMemoryApiKeyRepository::copy);
    }

    @Override
    public Optional<ApiKey> lockByHash(KeyHash hash) {
        return findByHash(hash);
    }

    @Override
    public synchronized List<ApiKey> listPage(AccountId accountId, boolean includeDisabled, int offset, int limit) {
        List<ApiKey> newestFirst = new ArrayList<>(keys);
        java.util.Collections.reverse(newestFirst);
        return newestFirst.stream()
                .filter(k -> k.accountId().equals(accountId))
                .filter(k -> k.deletedAt().isEmpty())
                .filter(k -> includeDisabled || !k.disabled())
                .sorted(Comparator.comparing(ApiKey::createdAt).reversed())
                .skip(offset)
                .limit(limit)
                .map(InMemoryApiKeyRepository::copy)
                .toList();
    }

    @Override
    public synchronized void update(ApiKey key) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).id().equals(key.id())) {
                keys.set(i, copy(key));
                return;
            }
        }
        throw new IllegalStateException("no key " + key.hash());
    }

    static ApiKey copy(ApiKey k) {
        return ApiKey.restore(k.id(), k.accountId(), k.hash(), k.label(), k.name(), k.disabled(),
                k.limit().orElse(null), k.expiresAt().orElse(null), k.createdAt(), k.updatedAt(),
                k.deletedAt().orElse(null));
    }
}
