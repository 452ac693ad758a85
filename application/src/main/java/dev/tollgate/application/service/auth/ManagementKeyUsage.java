package dev.tollgate.application.service.auth;

import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Records when management keys authenticate ("last used" on the dashboard) at most once a minute per key and
 * instance, off the request's path: the write goes to {@code executor}, and a failed write is only a stale
 * "last used", never a failed request.
 */
public final class ManagementKeyUsage {

    /** A use is written at most this often per key. */
    public static final Duration INTERVAL = Duration.ofMinutes(1);
    private static final int MAX_REMEMBERED = 10_000;

    private final ManagementKeyRepository managementKeys;
    private final Executor executor;
    private final Map<ManagementKeyId, Instant> recorded = new ConcurrentHashMap<>();

    public ManagementKeyUsage(ManagementKeyRepository managementKeys, Executor executor) {
        this.managementKeys = managementKeys;
        this.executor = executor;
    }

    /** Notes that {@code key} authenticated at {@code now}. */
    public void used(ManagementKey key, Instant now) {
        Instant stored = key.lastUsedAt().orElse(null);
        if (stored != null && now.isBefore(stored.plus(INTERVAL))) {
            return;
        }
        Instant mine = recorded.get(key.id());
        if (mine != null && now.isBefore(mine.plus(INTERVAL))) {
            return;
        }
        if (recorded.size() >= MAX_REMEMBERED) {
            recorded.clear(); // forgetting only means one more (guarded) write per key
        }
        recorded.put(key.id(), now);
        try {
            executor.execute(() -> {
                try {
                    managementKeys.recordUse(key.id(), now);
                } catch (RuntimeException e) {
                    recorded.remove(key.id(), now); // try again on the next use
                }
            });
        } catch (RejectedExecutionException e) {
            recorded.remove(key.id(), now);
        }
    }
}
