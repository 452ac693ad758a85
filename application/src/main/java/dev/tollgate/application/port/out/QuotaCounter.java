package dev.tollgate.application.port.out;

import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Instant;

/**
 * Out port: where the counters of the §8 traffic limits live — in this process, or in Redis shared by every
 * instance. The rules themselves are the domain's ({@link dev.tollgate.domain.quota.LocalQuotas} is the reference
 * semantics every implementation follows).
 */
public interface QuotaCounter {

    /**
     * Decides one demand in one atomic step: cooldowns first, then every check; admitted, the request is counted
     * in every bucket and takes its slots; refused, it counts nowhere (only request-limit blocks are recorded for
     * the cooldown).
     *
     * @throws Unavailable when the store cannot be reached in time
     */
    QuotaDecision decide(TrafficDemand demand, Instant now);

    /** Gives back the slots of an admitted request; called once per lease. */
    void release(SlotLease lease, Instant now);

    /**
     * Starts giving back the slots of an admitted request and returns without waiting for the store's answer: the
     * release is on its way to the store when this returns, so a request decided after the answer reached its
     * client — on this instance or another — finds the slots free; a release the store misses is retried in the
     * background (its lease's expiry is the last resort). The default gives them back at once ({@link #release}).
     */
    default void releaseSoon(SlotLease lease, Instant now) {
        release(lease, now);
    }

    /**
     * Whether {@link #releaseSoon} returns at once, waiting on no I/O (counters in this process, or a release only
     * written to the store's connection): a caller may then give slots back on whatever thread learns that a
     * request ended, an event loop included, rather than queueing the release on a blocking executor.
     */
    default boolean releasesInPlace() {
        return false;
    }

    /** The store did not answer (connection lost, timeout): the caller applies its failure policy. */
    final class Unavailable extends RuntimeException {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
