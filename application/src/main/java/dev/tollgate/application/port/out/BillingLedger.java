package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;

/**
 * Out port: prepaid money. A request first holds its maximum cost against the account's balance and the key's
 * limit in one atomic step, then settles exactly once to its actual cost (the rest goes back), leaving one
 * ledger row.
 */
public interface BillingLedger {

    enum HoldOutcome {
        PLACED,
        INSUFFICIENT_BALANCE,
        KEY_LIMIT_REACHED
    }

    /** A hold to place; it lapses at {@code leaseUntil} if nobody settles it. */
    record HoldRequest(String requestId, AccountId accountId, ApiKeyId apiKeyId, Usd amount, Instant admittedAt,
            Instant leaseUntil) {
    }

    /**
     * The end of a request; {@code cost} is at most what was held. {@code holdLeaseUntil}, when known, is when the
     * request's hold lapses: a store that cannot write the settlement may keep trying until shortly before then.
     */
    record Settlement(String requestId, KeyHash keyHash, String model, String provider, TokenUsage usage, Usd cost,
            String status, Instant finishedAt, Long latencyMillis, Long timeToFirstTokenMillis, boolean streamed,
            Instant holdLeaseUntil) {

        /** A settlement whose hold's lease is not known here (a sweep's release, a record of its own). */
        public Settlement(String requestId, KeyHash keyHash, String model, String provider, TokenUsage usage,
                Usd cost, String status, Instant finishedAt, Long latencyMillis, Long timeToFirstTokenMillis,
                boolean streamed) {
            this(requestId, keyHash, model, provider, usage, cost, status, finishedAt, latencyMillis,
                    timeToFirstTokenMillis, streamed, null);
        }
    }

    /** Atomically checks the key's limit (settled + open holds in its window) and the balance, and holds. */
    HoldOutcome placeHold(HoldRequest hold);

    /**
     * The request has ended and its settlement follows in a moment (after its answer is written): a hold of the same
     * account that the balance cannot cover yet may wait for that settlement's refund instead of being refused.
     */
    default void ending(String requestId, AccountId account) {
    }

    /** Charges {@code cost} (capped at the hold), returns the rest and writes the ledger row; repeat calls are no-ops. */
    boolean settle(Settlement settlement);

    /** How many holds are open right now (requests in flight, or dead ones not yet swept). */
    long openHolds();

    /** Settles holds whose lease ran out (their request died with its process) at no charge; returns how many. */
    int releaseExpired(Instant now, int max);
}
