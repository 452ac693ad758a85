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
 * At most {@code maxEntries} keys are kept. A hash the store does not know is remembered as unknown for the same
 * time, apart (at most a tenth as many, so made-up keys cannot crowd real ones out): a known key that was refused
 * (disabled, deleted) and one that never existed are then answered alike from memory, with no timing to tell them
 * apart (G12), and a client repeating a made-up key costs no lookup. A key is never created with a hash anyone
 * presented before (190 random bits), so remembering a hash as unknown never refuses a new key.
 */
public final class RecentApiKeys {

    private record Entry(ApiKey key, Instant readAt) {
    }

    private final ApiKeyRepository apiKeys;
    private final Clock clock;
    private final Duration ttl;
    private final int maxEntries;
    private final ConcurrentHashMap<KeyHash, Entry> entries = new ConcurrentHashMap<>();
    /** Hashes the store did not know, with when it was asked. */
    private final ConcurrentHashMap<KeyHash, Instant> unknown = new ConcurrentHashMap<>();
    private final int maxUnknown;

    /** @param maxEntries the most keys kept; 0 keeps none, as a TTL of zero does */
    public RecentApiKeys(ApiKeyRepository apiKeys, Clock clock, Duration ttl, int maxEntries) {
        if (ttl.isNegative() || maxEntries < 0) {
            throw new IllegalArgumentException("the key cache needs a TTL >= 0 and a size >= 0");
        }
        this.apiKeys = apiKeys;
        this.clock = clock;
        this.ttl = maxEntries == 0 ? Duration.ZERO : ttl;
        this.maxEntries = maxEntries;
        this.maxUnknown = Math.max(1, maxEntries / 10);
    }

    /** The key with this hash, from an entry younger than the TTL or else from the store. Read only; never change it. */
    public Optional<ApiKey> find(KeyHash hash) {
        Instant now = clock.instant();
        Entry entry = entries.get(hash);
        if (entry != null && fresh(entry.readAt(), now)) {
            return Optional.of(entry.key());
        }
        Instant askedAt = unknown.get(hash);
        if (askedAt != null && fresh(askedAt, now)) {
            return Optional.empty();
        }
        Optional<ApiKey> stored = apiKeys.findByHash(hash);
        if (ttl.isZero()) {
            return stored;
        }
        if (stored.isEmpty()) {
            entries.remove(hash);
            makeRoom(unknown, maxUnknown, now, asked -> asked);
            unknown.put(hash, now);
            return stored;
        }
        unknown.remove(hash);
        makeRoom(entries, maxEntries, now, Entry::readAt);
        entries.put(hash, new Entry(stored.get(), now));
        return stored;
    }

    private boolean fresh(Instant readAt, Instant now) {
        return now.isBefore(readAt.plus(ttl)) && !now.isBefore(readAt);
    }

    /** Drops stale entries of a full map, and everything if that is not enough. */
    private <V> void makeRoom(ConcurrentHashMap<KeyHash, V> map, int max, Instant now,
            java.util.function.Function<V, Instant> readAt) {
        if (map.size() >= max) {
            map.values().removeIf(v -> !fresh(readAt.apply(v), now));
            if (map.size() >= max) {
                map.clear();
            }
        }
    }

    /** Drops the entry of a key whose change was just committed. */
    public void forget(KeyHash hash) {
        entries.remove(hash);
        unknown.remove(hash);
    }
}
