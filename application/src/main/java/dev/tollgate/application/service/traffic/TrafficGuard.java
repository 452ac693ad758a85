package dev.tollgate.application.service.traffic;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.AdmitPlainRequestUseCase;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.in.traffic.TrafficLimitsUnavailableException;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.Admission;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import dev.tollgate.domain.quota.TrafficRules;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Service: the §8 traffic limits in front of the model surface. Builds each request's demand from the rules, has
 * the counter store decide it in one step, and hands back a {@link Ticket} whose concurrency slots go back exactly
 * once, whichever way the request ends. Disabled (an operator's explicit choice, e.g. for a benchmark of billing
 * alone), every request is admitted and nothing is counted.
 */
public final class TrafficGuard implements AdmitPlainRequestUseCase {

    private final TrafficRules rules;
    private final QuotaCounter counter;
    private final Clock clock;
    private final boolean enabled;
    private final AtomicLong inFlight = new AtomicLong();

    public TrafficGuard(TrafficRules rules, QuotaCounter counter, Clock clock, boolean enabled) {
        this.rules = rules;
        this.counter = counter;
        this.clock = clock;
        this.enabled = enabled;
    }

    public TrafficRules rules() {
        return rules;
    }

    @Override
    public RateLimitReport admitPlainRequest(ApiKeyPrincipal principal, TrafficOrigin origin) {
        if (!enabled) {
            return RateLimitReport.NONE;
        }
        return countOnly(admit(rules.modelRequest(caller(principal, origin), null)));
    }

    /** A chat completion on {@code /v1}: §8.1 buckets, slots, token windows and the behavioural cooldown. */
    public Ticket admitCompletion(ApiKeyPrincipal principal, TrafficOrigin origin, TrafficRules.Shape shape) {
        return enabled ? admit(rules.modelRequest(caller(principal, origin), shape)) : Ticket.UNCOUNTED;
    }

    /** A user-billed playground completion: the §8.1 buckets of the key plus the playground's per-user slots. */
    public Ticket admitUserPlayground(ApiKeyPrincipal principal, TrafficOrigin origin, TrafficRules.Shape shape) {
        return enabled ? admit(rules.userPlayground(caller(principal, origin), shape)) : Ticket.UNCOUNTED;
    }

    /** An anonymous playground completion: §8.2 (these limits protect the operator's money: never disabled). */
    public Ticket admitAnonymousPlayground(TrafficOrigin origin, long estimatedTokens) {
        if (origin.browserPrincipal() == null) {
            throw new IllegalArgumentException("an anonymous playground request needs a browser principal");
        }
        return admit(rules.anonymousPlayground(origin.browserPrincipal(), origin.sourceIp(), estimatedTokens));
    }

    /** An anonymous playground request refused for its content: counted like one without tokens, released at once. */
    public RateLimitReport admitAnonymousPlaygroundPlain(TrafficOrigin origin) {
        return countOnly(admitAnonymousPlayground(origin, 0));
    }

    /** A request counted and over at once (it holds no slot while nothing runs): what to report. */
    private static RateLimitReport countOnly(Ticket ticket) {
        ticket.release();
        return ticket.report();
    }

    /**
     * A dashboard sign-in attempt or mail ({@link dev.tollgate.domain.quota.AccessRules}): counted in the same store
     * as §8, never disabled (they stop password guessing and mail bombing), and holding no slot.
     *
     * @throws RateLimitExceededException a limit is exhausted
     */
    public void admitAccess(TrafficDemand demand) {
        if (!demand.slots().isEmpty()) {
            throw new IllegalArgumentException("an access demand holds no slots");
        }
        admit(demand);
    }

    /** Admitted requests of this instance that still hold concurrency slots. */
    public long inFlight() {
        return inFlight.get();
    }

    private Ticket admit(TrafficDemand demand) {
        Admission admission;
        try {
            admission = Admission.of(counter.decide(demand, clock.instant()));
        } catch (QuotaCounter.Unavailable e) {
            throw new TrafficLimitsUnavailableException();
        }
        if (admission instanceof Admission.Refused refused) {
            throw new RateLimitExceededException(refused.refusal(), refused.report());
        }
        SlotLease lease = ((Admission.Admitted) admission).lease();
        if (!lease.isEmpty()) {
            inFlight.incrementAndGet();
        }
        return new Ticket(this, admission.report(), lease);
    }

    private void release(SlotLease lease) {
        inFlight.decrementAndGet();
        try {
            counter.releaseSoon(lease, clock.instant());
        } catch (QuotaCounter.Unavailable e) {
            // The store lost the slot's release; its lease runs out there on its own (the store's lease time).
        }
    }

    private static TrafficRules.Caller caller(ApiKeyPrincipal principal, TrafficOrigin origin) {
        return new TrafficRules.Caller(principal.apiKeyId().toString(), principal.accountId().toString(),
                origin.sourceIp());
    }

    /** An admitted request's place in the limits: what to report, and its slots until {@link #release()}. */
    public static final class Ticket {

        /** A request admitted without counting (limits disabled). */
        public static final Ticket UNCOUNTED = new Ticket(null, RateLimitReport.NONE, SlotLease.NONE);

        private final TrafficGuard guard;
        private final RateLimitReport report;
        private final SlotLease lease;
        private final AtomicBoolean released = new AtomicBoolean();

        private Ticket(TrafficGuard guard, RateLimitReport report, SlotLease lease) {
            this.guard = guard;
            this.report = report;
            this.lease = lease;
        }

        public RateLimitReport report() {
            return report;
        }

        /**
         * Whether {@link #release()} returns at once without waiting on I/O (nothing held, a store in this process,
         * or a release only sent on its way), so it may run on the thread that learns the request ended.
         */
        public boolean releasesInPlace() {
            return guard == null || lease.isEmpty() || guard.counter.releasesInPlace();
        }

        /** Gives the slots back ({@link QuotaCounter#releaseSoon}); only the first call counts. */
        public void release() {
            if (guard != null && !lease.isEmpty() && released.compareAndSet(false, true)) {
                guard.release(lease);
            }
        }
    }
}
