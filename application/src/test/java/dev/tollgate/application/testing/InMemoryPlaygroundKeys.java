package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** In-memory fake of {@link PlaygroundKeys}. */
public final class InMemoryPlaygroundKeys implements PlaygroundKeys {

    private final Map<AccountId, KeyHash> keys = new ConcurrentHashMap<>();

    @Override
    public Optional<KeyHash> find(AccountId account) {
        return Optional.ofNullable(keys.get(account));
    }

    @Override
    public void assign(AccountId account, ApiKeyId key, KeyHash hash) {
        keys.put(account, hash);
    }
}
