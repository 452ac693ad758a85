package dev.tollgate.bootstrap.wiring;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Wiring: measures what the traffic limits add to a request — {@code tollgate_traffic_decision_seconds} (with
 * its p50 and p99 over the last minutes), outcome {@code admitted}, {@code refused} or {@code unavailable} — and
 * {@code tollgate_traffic_release_seconds}. The benchmark reads the decision's p99 under load from here.
 */
final class TimedQuotaCounter implements QuotaCounter {

    private final QuotaCounter store;
    private final Timer admitted;
    private final Timer refused;
    private final Timer unavailable;
    private final Timer released;

    TimedQuotaCounter(QuotaCounter store, MeterRegistry registry, String storeName) {
        this.store = store;
        this.admitted = decision(registry, storeName, "admitted");
        this.refused = decision(registry, storeName, "refused");
        this.unavailable = decision(registry, storeName, "unavailable");
        this.released = Timer.builder("tollgate.traffic.release").description("Giving back concurrency slots")
                .tag("store", storeName).publishPercentiles(0.5, 0.99).register(registry);
    }

    private static Timer decision(MeterRegistry registry, String store, String outcome) {
        return Timer.builder("tollgate.traffic.decision")
                .description("One request's traffic-limit decision (all buckets, one atomic step)")
                .tag("store", store).tag("outcome", outcome).publishPercentiles(0.5, 0.99).register(registry);
    }

    @Override
    public QuotaDecision decide(TrafficDemand demand, Instant now) {
        long start = System.nanoTime();
        try {
            QuotaDecision decision = store.decide(demand, now);
            (decision.admitted() ? admitted : refused).record(System.nanoTime() - start,
                    TimeUnit.NANOSECONDS);
            return decision;
        } catch (Unavailable e) {
            unavailable.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            throw e;
        }
    }

    @Override
    public boolean releasesInPlace() {
        return store.releasesInPlace();
    }

    @Override
    public void release(SlotLease lease, Instant now) {
        timed(() -> store.release(lease, now));
    }

    /** Timed too: what giving slots back costs the thread that does it (for Redis, sending the release). */
    @Override
    public void releaseSoon(SlotLease lease, Instant now) {
        timed(() -> store.releaseSoon(lease, now));
    }

    private void timed(Runnable release) {
        long start = System.nanoTime();
        try {
            release.run();
        } finally {
            released.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }
}
