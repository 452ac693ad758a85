package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.SlotLease;
import java.util.List;

/** A counter store that several instances share (Redis), and that can be told what ran while it was unreachable. */
public interface SharedQuotaStore extends QuotaCounter {

    /**
     * After an outage: counts the concurrency slots of requests that still run without checking any limit — the
     * store's own leases (which may have expired there meanwhile) and {@code adopted}, leases granted elsewhere
     * during the outage — and takes the adopted ones over: from then on they are renewed and released here.
     *
     * @return the adopted leases as this store knows them, in the order given (empty leases left out)
     * @throws QuotaCounter.Unavailable the store still does not answer (nothing was taken over)
     */
    List<SlotLease> reinstate(List<SlotLease> adopted);
}
