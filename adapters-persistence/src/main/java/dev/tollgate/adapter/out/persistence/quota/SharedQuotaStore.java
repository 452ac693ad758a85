package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.SlotLease;
import java.time.Duration;
import java.time.Instant;
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

    /**
     * After an outage: adds admissions made elsewhere during it to the request windows and distinct sets,
     * unchecked (those requests were served). Adding one twice is harmless: an admission keeps its member.
     *
     * @throws QuotaCounter.Unavailable the store does not answer (some may have been added)
     */
    void replay(List<Entry> admissions);

    /**
     * After an outage: the cooldowns (request-limit and behavioural) that an instance started alone during it and
     * that still run at {@code now} last at least until their ends here too; a longer one already here stays.
     * Telling one twice is harmless.
     *
     * @throws QuotaCounter.Unavailable the store does not answer (some may have been told)
     */
    void replayCooldowns(List<Cooldown> cooldowns, Instant now);

    /**
     * One admission in one window: for a request window its own member (unique across instances), for a distinct
     * set the member seen.
     */
    record Entry(Bucket bucket, Instant at, String member, Duration window) {
    }

    /** A running cooldown: the key of its state (a cooldown or behaviour bucket's {@link Bucket#key()}) and its end. */
    record Cooldown(String key, Instant until) {
    }
}
