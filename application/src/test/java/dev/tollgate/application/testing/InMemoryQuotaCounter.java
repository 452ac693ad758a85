package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.LocalQuotas;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Instant;
import java.util.HashMap;

/** In-memory fake of {@link QuotaCounter}: the domain's rules over a plain map, one caller at a time. */
public final class InMemoryQuotaCounter implements QuotaCounter {

    private final LocalQuotas quotas = new LocalQuotas(new HashMap<>());
    private volatile boolean inPlace;

    /** Says, as counters in this process do, that a release waits on no I/O. */
    public void releaseInPlace() {
        inPlace = true;
    }

    @Override
    public boolean releasesInPlace() {
        return inPlace;
    }

    @Override
    public synchronized QuotaDecision decide(TrafficDemand demand, Instant now) {
        return quotas.decide(demand, now);
    }

    @Override
    public synchronized void release(SlotLease lease, Instant now) {
        quotas.release(lease);
    }

    public synchronized long inFlight(Bucket slot) {
        return quotas.inFlight(slot);
    }
}
