package dev.tollgate.application.service.common;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.KeyHash;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recently authenticated regular keys, so a request does not read its key from the store every time. An entry is
 * used for at most {@code ttl}: a key disabled or deleted on another instance (or with the CLI) is refused everywhere
 * within that time; on this instance the key management service forgets a key as soon as its change is committed.
 * Expiry is always exact, because a key's state is computed from the entry and the current clock on every request.
 * Only keys that exist are kept (an unknown key is read from the store every time), at most {@code maxEntries}.
 */
public final class RecentApiKeys {

    private record Entry(ApiKey key, Instant readAt) {
    }

    private final ApiKeyRepository apiKeys;
    private final Clock clock;
    private final Duration ttl;
    private final int maxEntries;
    private final ConcurrentHashMap<KeyHash, Entry> entries = new ConcurrentHashMap<>();

    public RecentApiKeys(ApiKeyRepository apiKeys, Clock clock, Duration ttl, int maxEntries) {
        if (ttl.isNegative() || maxEntries < 1) {
            throw new IllegalArgumentException("the key cache needs a TTL >= 0 and room for at least one key");
        }
        this.apiKeys = apiKeys;
        this.clock = clock;
        this.ttl = ttl;
        this.maxEntries = maxEntries;
    }

    /** The key with this hash, from an entry younger than the TTL or else from the store. Read only; never change it. */
    public Optional<ApiKey> find(KeyHash hash) {
        Instant now = clock.instant();
        Entry entry = entries.get(hash);
        if (entry != null && now.isBefore(entry.readAt().plus(ttl)) && !now.isBefore(entry.readAt())) {
            return Optional.of(entry.key());
        }
        Optional<ApiKey> stored = apiKeys.findByHash(hash);
        if (stored.isEmpty() || ttl.isZero()) {
            entries.remove(hash);
            return stored;
        }
        if (entries.size() >= maxEntries) {
            entries.values().removeIf(e -> !now.isBefore(e.readAt().plus(ttl)));
            if (entries.size() >= maxEntries) {
                entries.clear();
            }
        }
        entries.put(hash, new Entry(stored.get(), now));
        return stored;
    }

    /** Drops the entry of a key whose change was just committed. */
    public void forget(KeyHash hash) {
        entries.remove(hash);
    }
}
