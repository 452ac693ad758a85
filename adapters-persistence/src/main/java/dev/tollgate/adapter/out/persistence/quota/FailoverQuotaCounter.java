package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.StoreFailurePolicy;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: a shared counter store (Redis) with the configured failure policy in front of it. While
 * the shared store answers, it decides everything. When it does not, each check follows its policy: a check that
 * fails closed makes the request fail as unavailable; otherwise this instance decides alone, in memory, against
 * its share of every limit (limit ÷ live instances), so all instances together stay within the limit. What the
 * shared store admits is mirrored in memory (counted against the shares, slots included), so an instance that
 * already used its share before the failure admits nothing more alone — a short failure under load does not let
 * every instance add a full share on top of what it had. After a failure the shared store is asked again after
 * {@code retryAfter} — not by every request in between, which would each wait out the timeout.
 */
public final class FailoverQuotaCounter implements QuotaCounter {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverQuotaCounter.class);

    private final QuotaCounter shared;
    private final InProcessQuotaCounter local;
    private final StoreFailurePolicy policy;
    private final IntSupplier instances;
    private final long retryAfterNanos;
    private final Set<String> localLeases = ConcurrentHashMap.newKeySet();
    private final Map<String, SlotLease> mirrors = new ConcurrentHashMap<>();
    private volatile long sharedDownUntil;
    private volatile boolean down;

    public FailoverQuotaCounter(QuotaCounter shared, InProcessQuotaCounter local, StoreFailurePolicy policy,
            IntSupplier instances, Duration retryAfter) {
        this.shared = shared;
        this.local = local;
        this.policy = policy;
        this.instances = instances;
        this.retryAfterNanos = retryAfter.toNanos();
    }

    @Override
    public QuotaDecision decide(TrafficDemand demand, Instant now) {
        if (!down || System.nanoTime() - sharedDownUntil >= 0) {
            try {
                QuotaDecision decision = shared.decide(demand, now);
                if (decision.admitted()) {
                    SlotLease mirror = local.record(share(demand), now);
                    if (!mirror.isEmpty()) {
                        mirrors.put(decision.lease().id(), mirror);
                    }
                }
                if (down) {
                    down = false;
                    LOG.info("The shared rate-limit store answers again; limits are shared across instances again");
                }
                return decision;
            } catch (Unavailable e) {
                sharedDownUntil = System.nanoTime() + retryAfterNanos;
                if (!down) {
                    down = true;
                    LOG.warn("The shared rate-limit store is unreachable ({}); failure policy {} applies",
                            e.getMessage(), policy);
                }
                return fallback(demand, now, e);
            }
        }
        return fallback(demand, now, null);
    }

    private QuotaDecision fallback(TrafficDemand demand, Instant now, Unavailable cause) {
        if (policy.failsClosed(demand)) {
            throw cause != null ? cause : new Unavailable("the shared rate-limit store is unreachable", null);
        }
        QuotaDecision decision = local.decide(share(demand), now);
        if (!decision.lease().isEmpty()) {
            localLeases.add(decision.lease().id());
        }
        return decision;
    }

    private TrafficDemand share(TrafficDemand demand) {
        return demand.shareOf(Math.max(1, instances.getAsInt()));
    }

    @Override
    public void release(SlotLease lease, Instant now) {
        if (localLeases.remove(lease.id())) {
            local.release(lease, now);
            return;
        }
        SlotLease mirror = mirrors.remove(lease.id());
        if (mirror != null) {
            local.release(mirror, now);
        }
        shared.release(lease, now);
    }

    /** Whether the shared store is currently taken as unreachable. */
    public boolean sharedStoreDown() {
        return down;
    }
}
