package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.application.port.out.BillingLedger.HoldRequest;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The holds of keys without a spend limit, kept in memory until they are old enough to be worth a row of
 * {@code request_hold} (docs/decisions.md, "Holds of keys without a limit are written behind"). Such a hold needs no
 * database to be safe: its money is in this instance's balance slice, already out of the account's balance, and no
 * other instance reads it (only a limited key's check sums the holds of its key). Its row serves the sweeper after
 * a crash and the balance report, so it is written in the background, in batches, once the hold is {@code delay}
 * old; a request that ends sooner — most, in front of a fast upstream — never writes one, and its settlement has no
 * row to delete.
 *
 * <p>Which keys have no limit is learnt from the holds written before the call (a batch whose keys have none says
 * so) and trusted for a second: a limit set on a key applies to its holds at most a second later on any instance
 * (like the key cache's {@code TOLLGATE_AUTH_KEY_CACHE_TTL} for a disabled key).
 *
 * <p>Each deferred hold is claimed exactly once: by its settlement (then it never gets a row), by the writer (then
 * the settlement deletes the row, as for any hold), or dropped when this instance's lease ran out (then, like a hold
 * another instance swept, its settlement finds nothing and charges nothing). The writer holds {@link #writing}
 * while it writes, so a settlement whose hold is being written waits for the commit, and a drop never races a
 * write.
 */
final class DeferredHolds {

    /** How long a key found without a limit is trusted to have none. */
    static final long UNLIMITED_TRUSTED_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Writes the rows of a batch of holds in one transaction. */
    @FunctionalInterface
    interface RowWriter {
        void write(List<HoldRequest> holds) throws SQLException;
    }

    private enum State { WAITING, WRITING, WRITTEN, SETTLING, DROPPED }

    private static final class Deferred {
        final HoldRequest hold;
        final long sinceNanos = System.nanoTime();
        State state = State.WAITING; // guarded by this

        Deferred(HoldRequest hold) {
            this.hold = hold;
        }
    }

    private final long delayNanos;
    private final Map<String, Deferred> waiting = new ConcurrentHashMap<>();
    /** Keys found without a limit, and until when ({@link System#nanoTime}) that is trusted. */
    private final Map<UUID, Long> unlimitedUntil = new ConcurrentHashMap<>();
    private final ReentrantLock writing = new ReentrantLock();

    /** @param delayNanos how old a hold gets before its row is written; 0: every hold is written before the call */
    DeferredHolds(long delayNanos) {
        this.delayNanos = delayNanos;
    }

    boolean enabled() {
        return delayNanos > 0;
    }

    long delayNanos() {
        return delayNanos;
    }

    /** Whether a hold of the key may be deferred: the key was found without a limit within the last second. */
    boolean mayDefer(UUID apiKey) {
        if (!enabled()) {
            return false;
        }
        Long until = unlimitedUntil.get(apiKey);
        return until != null && until - System.nanoTime() > 0;
    }

    /** The keys of a batch written before the call had no limit when it committed. */
    void foundUnlimited(Collection<UUID> apiKeys) {
        if (!enabled()) {
            return;
        }
        long until = System.nanoTime() + UNLIMITED_TRUSTED_NANOS;
        for (UUID key : apiKeys) {
            unlimitedUntil.put(key, until);
        }
    }

    /** Keeps a placed hold; its row is written once it is {@code delay} old, unless it is settled first. */
    void defer(HoldRequest hold) {
        waiting.put(hold.requestId(), new Deferred(hold));
    }

    /** Whether the request's hold is kept here without a row (a hold is deferred before its request runs). */
    boolean has(String requestId) {
        return waiting.containsKey(requestId);
    }

    /**
     * Claims the hold of a request for its settlement: the hold when it had no row yet (it never will), or null
     * when the request has no deferred hold (its hold has a row, or was dropped). Waits while its row is written.
     */
    HoldRequest claim(String requestId) {
        while (true) {
            Deferred deferred = waiting.get(requestId);
            if (deferred == null) {
                return null;
            }
            synchronized (deferred) {
                if (deferred.state == State.WAITING) {
                    deferred.state = State.SETTLING;
                    waiting.remove(requestId, deferred);
                    return deferred.hold;
                }
                if (deferred.state != State.WRITING) {
                    return null; // written (its row is deleted as any other), settling elsewhere, or dropped
                }
            }
            writing.lock(); // the write under way ends: written, or (it failed) waiting again
            writing.unlock();
        }
    }

    /**
     * Writes the rows of the holds at least {@code minAgeNanos} old (0: all) and forgets them; on failure they wait
     * for the next write. Answers how many were written.
     */
    int write(long minAgeNanos, RowWriter rows) throws SQLException {
        writing.lock();
        try {
            long now = System.nanoTime();
            List<Deferred> batch = new ArrayList<>();
            for (Deferred deferred : waiting.values()) {
                synchronized (deferred) {
                    if (deferred.state == State.WAITING && now - deferred.sinceNanos >= minAgeNanos) {
                        deferred.state = State.WRITING;
                        batch.add(deferred);
                    }
                }
            }
            if (batch.isEmpty()) {
                return 0;
            }
            boolean written = false;
            try {
                rows.write(batch.stream().map(d -> d.hold).toList());
                written = true;
            } finally {
                for (Deferred deferred : batch) {
                    synchronized (deferred) {
                        deferred.state = written ? State.WRITTEN : State.WAITING;
                    }
                    if (written) {
                        waiting.remove(deferred.hold.requestId(), deferred);
                    }
                }
            }
            return batch.size();
        } finally {
            writing.unlock();
        }
    }

    /**
     * This instance's lease ran out: another instance may have taken it for stopped and given its slices back, so
     * no deferred hold is covered any more. They are dropped (their settlements find nothing and charge nothing,
     * as for holds the other instance released); answers how many.
     */
    int dropAll() {
        writing.lock();
        try {
            int dropped = 0;
            for (Deferred deferred : waiting.values()) {
                synchronized (deferred) {
                    if (deferred.state == State.WAITING) {
                        deferred.state = State.DROPPED;
                        dropped++;
                    }
                }
                waiting.remove(deferred.hold.requestId(), deferred);
            }
            return dropped;
        } finally {
            writing.unlock();
        }
    }

    /** Runs {@code task} while no write is under way (closing the writer's connection). */
    void whileNotWriting(Runnable task) {
        writing.lock();
        try {
            task.run();
        } finally {
            writing.unlock();
        }
    }

    /** Forgets keys whose freedom from a limit is no longer trusted (upkeep). */
    void forgetStaleKeys() {
        long now = System.nanoTime();
        unlimitedUntil.values().removeIf(until -> until - now <= 0);
    }

    /** Holds kept here without a row. */
    int size() {
        return waiting.size();
    }
}
