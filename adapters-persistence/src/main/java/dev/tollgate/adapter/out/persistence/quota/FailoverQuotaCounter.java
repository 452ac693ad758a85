package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.QuotaCheck;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.StoreFailurePolicy;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * {@code retryAfter} — not by every request in between, which would each wait out the timeout. When it answers
 * again, it is first told which requests still run ({@link SharedQuotaStore#reinstate}): the slots this instance
 * granted alone during the outage, and its own leases that expired there while they could not be renewed — so that
 * it does not admit a whole concurrency cap on top of requests that are still running — and what this instance
 * admitted alone that its request windows and distinct sets still hold ({@link SharedQuotaStore#replay}), so that
 * a window spanning the recovery counts the requests of both sides, and the cooldowns running here
 * ({@link SharedQuotaStore#replayCooldowns}), so that a caller cooled down during the outage stays so.
 * <p>
 * The shared store never sees what an instance admits alone until that instance reaches it again. So while any
 * other live instance decides alone ({@link AloneInstances}) — in the moment between one instance's recovery and
 * another's, or while only some instances lose the shared store — this one admits through the shared store only
 * what its own share admits as well: each instance within its share, all of them within the limit.
 */
public final class FailoverQuotaCounter implements QuotaCounter {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverQuotaCounter.class);

    private final SharedQuotaStore shared;
    private final InProcessQuotaCounter local;
    private final StoreFailurePolicy policy;
    private final IntSupplier instances;
    private final AloneInstances peers;
    private final long retryAfterNanos;
    /** Slots granted here alone while the shared store was unreachable, by lease id. */
    private final Map<String, SlotLease> localLeases = new ConcurrentHashMap<>();
    /** The shared store's copies of those still running when it came back, by the local lease's id. */
    private final Map<String, SlotLease> adopted = new ConcurrentHashMap<>();
    private final Map<String, SlotLease> mirrors = new ConcurrentHashMap<>();
    /** Request-window admissions made here alone, oldest first, while their window can hold them. */
    private volatile ConcurrentLinkedDeque<SharedQuotaStore.Entry> aloneInWindows = new ConcurrentLinkedDeque<>();
    /** Distinct members seen here alone, by set and member: the latest time each was seen. */
    private volatile Map<String, SharedQuotaStore.Entry> aloneInSets = new ConcurrentHashMap<>();
    private final String replayPrefix = "o-" + UUID.randomUUID() + "-";
    private final AtomicLong replayed = new AtomicLong();
    private volatile long sharedDownUntil;
    private volatile boolean down;
    /**
     * Admissions made alone hold it shared; the end of a recovery, and each hand-over's swap of what was admitted
     * alone, hold it exclusively: so an admission made alone while the store is being told is either in what is told
     * or seen by the last look before the store counts alone again (a review found one that landed after that look
     * and was never told — its slot not counted there while its request ran).
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock handOver =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** A caller is finding out whether the shared store is back ({@link #recover}). */
    private final AtomicBoolean recovering = new AtomicBoolean();
    /** Back from an outage with nothing to hand over: the store has not answered yet (logged once it does). */
    private volatile boolean unconfirmed;
    /** The other instances were told that this one admits alone (and not yet that it shares again). */
    private volatile boolean announcedAlone;

    public FailoverQuotaCounter(SharedQuotaStore shared, InProcessQuotaCounter local, StoreFailurePolicy policy,
            IntSupplier instances, AloneInstances peers, Duration retryAfter) {
        this.shared = shared;
        this.local = local;
        this.policy = policy;
        this.instances = instances;
        this.peers = peers;
        this.retryAfterNanos = retryAfter.toNanos();
    }

    @Override
    public QuotaDecision decide(TrafficDemand demand, Instant now) {
        if (!down || System.nanoTime() - sharedDownUntil >= 0) {
            try {
                if (down) {
                    // One caller at a time finds out whether the store is back; the others decide alone meanwhile
                    // rather than queue, each for its own try of up to the store's timeout.
                    if (!recovering.compareAndSet(false, true)) {
                        return fallback(demand, now, null);
                    }
                    try {
                        recover(now);
                    } finally {
                        recovering.set(false);
                    }
                }
                if (announcedAlone) { // what it admitted alone has been handed to the shared store
                    announcedAlone = false;
                    peers.alone(false);
                }
                if (peers.othersAlone()) {
                    return decideWithinShare(demand, now);
                }
                QuotaDecision decision = sharedDecision(demand, now);
                if (decision.admitted()) {
                    SlotLease mirror = local.record(share(demand), now);
                    if (!mirror.isEmpty()) {
                        mirrors.put(decision.lease().id(), mirror);
                    }
                }
                return decision;
            } catch (Unavailable e) {
                sharedDownUntil = System.nanoTime() + retryAfterNanos;
                if (!down) {
                    down = true;
                    if (unconfirmed) {
                        unconfirmed = false; // a recovery with nothing to hand over, not confirmed: still down
                    } else {
                        LOG.warn("The shared rate-limit store is unreachable ({}); failure policy {} applies",
                                e.getMessage(), policy);
                    }
                }
                return fallback(demand, now, e);
            }
        }
        return fallback(demand, now, null);
    }

    /**
     * The shared store's decision. A cooldown it refuses with is kept here as well, so that the caller stays refused
     * for the rest of it if this instance has to decide alone before it ends (an audit's client, told to wait 30 s,
     * got in at once when the shared store stopped).
     */
    private QuotaDecision sharedDecision(TrafficDemand demand, Instant now) {
        QuotaDecision decision = shared.decide(demand, now);
        if (unconfirmed) {
            unconfirmed = false;
            LOG.info("The shared rate-limit store answers again; limits are shared across instances again");
        }
        if (decision.cooldown() != null) {
            local.mirrorCooldown(share(demand), decision.cooldown(), now);
        }
        return decision;
    }

    /**
     * Another instance admits alone: this one's share must admit the request too (checked first, so a request the
     * share refuses costs nothing in the shared store), and what the shared store admits is mirrored as usual.
     */
    private QuotaDecision decideWithinShare(TrafficDemand demand, Instant now) {
        InProcessQuotaCounter.Within within = local.decideWithin(share(demand), now,
                () -> sharedDecision(demand, now));
        QuotaDecision decision = within.decision();
        if (!within.mirror().isEmpty()) {
            mirrors.put(decision.lease().id(), within.mirror());
        }
        return decision;
    }

    private QuotaDecision alone(TrafficDemand demand, Instant now, Unavailable cause) {
        if (policy.failsClosed(demand)) {
            throw cause != null ? cause : new Unavailable("the shared rate-limit store is unreachable", null);
        }
        handOver.readLock().lock();
        try {
            if (!down) {
                // The store came back while this caller waited: it decides there (below, without the lock).
                return null;
            }
            QuotaDecision decision = local.decide(share(demand), now);
            if (!decision.lease().isEmpty()) {
                localLeases.put(decision.lease().id(), decision.lease());
            }
            if (decision.admitted()) {
                rememberAlone(demand, now);
                if (!announcedAlone) {
                    announcedAlone = true;
                    peers.alone(true);
                }
            }
            return decision;
        } finally {
            handOver.readLock().unlock();
        }
    }

    /** Decides alone, or — when the store came back meanwhile — as the store says. */
    private QuotaDecision fallback(TrafficDemand demand, Instant now, Unavailable cause) {
        QuotaDecision decision = alone(demand, now, cause);
        return decision != null ? decision : decide(demand, now);
    }

    /** Keeps what an admission made alone adds to the request windows and distinct sets, for the shared store. */
    private void rememberAlone(TrafficDemand demand, Instant now) {
        ConcurrentLinkedDeque<SharedQuotaStore.Entry> windows = aloneInWindows;
        Map<String, SharedQuotaStore.Entry> sets = aloneInSets;
        long number = replayed.incrementAndGet();
        String request = replayPrefix + number + ":";
        for (int i = 0; i < demand.checks().size(); i++) {
            QuotaCheck check = demand.checks().get(i);
            if (check instanceof QuotaCheck.Requests r) {
                windows.add(new SharedQuotaStore.Entry(r.bucket(), now, request + i, r.window()));
            } else if (check instanceof QuotaCheck.Distinct d) {
                sets.put(d.bucket().key() + '\n' + d.member(),
                        new SharedQuotaStore.Entry(d.bucket(), now, d.member(), d.window()));
            }
        }
        SharedQuotaStore.Entry oldest;
        while ((oldest = windows.peekFirst()) != null && !stillCounts(oldest, now)) {
            windows.pollFirst();
        }
        if (number % 4096 == 0) {
            sets.values().removeIf(entry -> !stillCounts(entry, now));
        }
    }

    private static boolean stillCounts(SharedQuotaStore.Entry entry, Instant now) {
        return entry.at().plus(entry.window()).isAfter(now);
    }

    /**
     * The shared store answers again: it is told what still runs before it decides anything. Callers that decided
     * alone while it was being told are told in a second pass (and a third), so that their requests count there too.
     */
    private synchronized void recover(Instant now) {
        if (!down) {
            return; // another caller just did
        }
        int running = 0;
        int admissions = 0;
        List<SharedQuotaStore.Cooldown> cooldowns = local.cooldowns(now);
        shared.replayCooldowns(cooldowns, now);
        for (int pass = 0; ; pass++) {
            running += handOverLeases(now);
            admissions += handOverAdmissions(now);
            handOver.writeLock().lock();
            try {
                if (pass >= 2 && aloneSinceHandOver()) {
                    // Still admitting alone after three passes: the last one with callers held off.
                    running += handOverLeases(now);
                    admissions += handOverAdmissions(now);
                }
                if (!aloneSinceHandOver()) {
                    down = false;
                    break;
                }
            } finally {
                handOver.writeLock().unlock();
            }
        }
        if (running == 0 && admissions == 0 && cooldowns.isEmpty()) {
            // Nothing was handed over, so nothing has reached the store yet: the next decision tells.
            unconfirmed = true;
            return;
        }
        LOG.info("The shared rate-limit store answers again; limits are shared across instances again ({} requests "
                + "admitted during the outage still run, {} admissions still in their windows and {} running "
                + "cooldowns, now counted there)", running, admissions, cooldowns.size());
    }

    /** Whether a request was admitted alone since the last hand-over (by a caller that did not wait for it). */
    private boolean aloneSinceHandOver() {
        if (!aloneInWindows.isEmpty() || !aloneInSets.isEmpty()) {
            return true;
        }
        for (SlotLease lease : localLeases.values()) {
            if (!adopted.containsKey(lease.id())) {
                return true;
            }
        }
        return false;
    }

    /** Hands the slots granted alone that still run over to the shared store; how many. */
    private int handOverLeases(Instant now) {
        List<SlotLease> running = new ArrayList<>();
        for (SlotLease lease : localLeases.values()) {
            if (!adopted.containsKey(lease.id())) { // handed over after an earlier outage already
                running.add(lease);
            }
        }
        List<SlotLease> taken = shared.reinstate(running);
        for (int i = 0; i < running.size(); i++) {
            String id = running.get(i).id();
            adopted.put(id, taken.get(i));
            // Ended while being adopted: whichever of this and release() removes the copy gives it back, once.
            if (!localLeases.containsKey(id) && adopted.remove(id, taken.get(i))) {
                releaseAdopted(taken.get(i), now, false);
            }
        }
        return running.size();
    }

    /** Replays what was admitted alone and still counts in its window or set; how many entries. */
    private int handOverAdmissions(Instant now) {
        ConcurrentLinkedDeque<SharedQuotaStore.Entry> windows;
        Map<String, SharedQuotaStore.Entry> sets;
        handOver.writeLock().lock(); // no admission made alone is half-way into the ones swapped out
        try {
            windows = aloneInWindows;
            sets = aloneInSets;
            aloneInWindows = new ConcurrentLinkedDeque<>();
            aloneInSets = new ConcurrentHashMap<>();
        } finally {
            handOver.writeLock().unlock();
        }
        List<SharedQuotaStore.Entry> admissions = new ArrayList<>(windows.size() + sets.size());
        for (SharedQuotaStore.Entry entry : windows) {
            if (stillCounts(entry, now)) {
                admissions.add(entry);
            }
        }
        for (SharedQuotaStore.Entry entry : sets.values()) {
            if (stillCounts(entry, now)) {
                admissions.add(entry);
            }
        }
        try {
            shared.replay(admissions);
        } catch (Unavailable e) {
            aloneInWindows.addAll(windows); // told again at the next try (an admission added twice counts once)
            aloneInSets.putAll(sets);
            throw e;
        }
        return admissions.size();
    }

    private TrafficDemand share(TrafficDemand demand) {
        return demand.shareOf(Math.max(1, instances.getAsInt()));
    }

    @Override
    public void release(SlotLease lease, Instant now) {
        release(lease, now, false);
    }

    @Override
    public void releaseSoon(SlotLease lease, Instant now) {
        release(lease, now, true);
    }

    /** The local store releases in place; the shared one is sent the release when it is in place too. */
    @Override
    public boolean releasesInPlace() {
        return shared.releasesInPlace();
    }

    private void release(SlotLease lease, Instant now, boolean soon) {
        if (localLeases.remove(lease.id()) != null) {
            local.release(lease, now);
            SlotLease copy = adopted.remove(lease.id());
            if (copy != null) {
                releaseAdopted(copy, now, soon);
            }
            return;
        }
        SlotLease mirror = mirrors.remove(lease.id());
        if (mirror != null) {
            local.release(mirror, now);
        }
        releaseShared(lease, now, soon);
    }

    /** The shared store's copy of slots granted alone: a failure to give it back is the shared store's to retry. */
    private void releaseAdopted(SlotLease copy, Instant now, boolean soon) {
        try {
            releaseShared(copy, now, soon);
        } catch (Unavailable e) {
            // The shared store gives it back on its own later (or the lease runs out there).
        }
    }

    private void releaseShared(SlotLease lease, Instant now, boolean soon) {
        if (soon) {
            shared.releaseSoon(lease, now);
        } else {
            shared.release(lease, now);
        }
    }

    /** Whether the shared store is currently taken as unreachable. */
    public boolean sharedStoreDown() {
        return down;
    }
}
