package dev.tollgate.domain.quota;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The §8 rules over counters kept in memory: one {@link TrafficDemand} decided all or nothing. Cooldowns are
 * looked at first; then every check is evaluated without changing anything; a refusal records request-limit
 * blocks (and nothing else), an admission counts the request in every bucket and takes its slots. The map it works
 * on is the caller's (a plain map in tests, a striped map of idle-swept states in the in-process store): a state
 * is put when it is created and when its idle time changes (a slot gauge starting or ending its use); an evicting
 * map takes every read as activity. Callers serialise the decisions that share a bucket (the in-process store
 * locks the stripes of every bucket a demand names); lease numbers are safe to draw from any thread.
 */
public final class LocalQuotas {

    private static final String COOLDOWN = "cooldown";
    private static final String BEHAVIOUR = "behaviour";

    private final Map<String, QuotaState> states;
    private final AtomicLong leases = new AtomicLong();

    public LocalQuotas(Map<String, QuotaState> states) {
        this.states = states;
    }

    public QuotaDecision decide(TrafficDemand demand, Instant at) {
        long now = at.toEpochMilli();
        Evaluation evaluation = evaluate(demand, now);
        if (!evaluation.passes()) {
            QuotaDecision.CooldownBlock block = evaluation.block();
            if (block == null) {
                block = recordBlocks(demand, evaluation.before(), now);
            }
            return new QuotaDecision(evaluation.before(), block, SlotLease.NONE);
        }
        List<QuotaState> counters = evaluation.counters();
        BehaviourSample sample = demand.behaviour();
        BehaviourState behaviour = evaluation.behaviour();
        List<CheckState> after = new ArrayList<>(demand.checks().size());
        for (int i = 0; i < demand.checks().size(); i++) {
            QuotaCheck check = demand.checks().get(i);
            QuotaState counter = counters.get(i);
            record(check, counter, now);
            CheckState state = evaluate(check, counter, now);
            after.add(new CheckState(check, state.used(), Duration.ZERO, state.reset()));
        }
        if (sample != null) {
            behaviour.record(now, sample.fingerprint(), sample.minimal());
        }
        List<Bucket> slots = demand.slots();
        SlotLease lease = slots.isEmpty() ? SlotLease.NONE : new SlotLease("local-" + leases.incrementAndGet(), slots);
        return new QuotaDecision(after, null, lease);
    }

    /**
     * What {@link #decide} would answer at {@code at}, without counting anything: no admission, no request-limit
     * block, no slot (the lease is always empty). A caller that holds the demand's buckets (the in-process store's
     * stripe locks) can look first and then admit or refuse on another store's word as well.
     */
    public QuotaDecision check(TrafficDemand demand, Instant at) {
        Evaluation evaluation = evaluate(demand, at.toEpochMilli());
        return new QuotaDecision(evaluation.before(), evaluation.block(), SlotLease.NONE);
    }

    /** Every check of a demand evaluated, nothing changed: its counters, their states, the cooldown that blocks. */
    private record Evaluation(List<QuotaState> counters, List<CheckState> before, QuotaDecision.CooldownBlock block,
            BehaviourState behaviour, boolean passes) {
    }

    private Evaluation evaluate(TrafficDemand demand, long now) {
        QuotaDecision.CooldownBlock block = null;
        for (Bucket scope : demand.cooldownScopes()) {
            Bucket bucket = scope.withRule(COOLDOWN);
            CooldownState cooldown = state(bucket, () -> new CooldownState(demand.cooldown()));
            long wait = cooldown.remainingMillis(now);
            if (wait > 0 && (block == null || wait > block.retryAfter().toMillis())) {
                block = new QuotaDecision.CooldownBlock(scope, Duration.ofMillis(wait), false);
            }
        }
        BehaviourSample sample = demand.behaviour();
        BehaviourState behaviour = null;
        if (sample != null) {
            behaviour = state(sample.scope().withRule(BEHAVIOUR), () -> new BehaviourState(sample.rule()));
            long wait = behaviour.cooldownMillis(now);
            if (wait > 0 && (block == null || wait > block.retryAfter().toMillis())) {
                block = new QuotaDecision.CooldownBlock(sample.scope(), Duration.ofMillis(wait), true);
            }
        }
        List<QuotaState> counters = new ArrayList<>(demand.checks().size());
        List<CheckState> before = new ArrayList<>(demand.checks().size());
        boolean passes = block == null;
        for (QuotaCheck check : demand.checks()) {
            QuotaState counter = counterOf(check);
            counters.add(counter);
            CheckState state = evaluate(check, counter, now);
            before.add(state);
            passes &= state.passed();
        }
        return new Evaluation(counters, before, block, behaviour, passes);
    }

    /**
     * Counts a request another store admitted, without checking anything: every bucket records it and its slots
     * are taken. A shared store's decisions are mirrored here, so that when the shared store fails, this
     * instance's local share already holds what the instance admitted before.
     */
    public SlotLease record(TrafficDemand demand, Instant at) {
        long now = at.toEpochMilli();
        for (QuotaCheck check : demand.checks()) {
            record(check, counterOf(check), now);
        }
        BehaviourSample sample = demand.behaviour();
        if (sample != null) {
            state(sample.scope().withRule(BEHAVIOUR), () -> new BehaviourState(sample.rule()))
                    .record(now, sample.fingerprint(), sample.minimal());
        }
        List<Bucket> slots = demand.slots();
        return slots.isEmpty() ? SlotLease.NONE : new SlotLease("local-" + leases.incrementAndGet(), slots);
    }

    /**
     * Keeps a cooldown another store refused this demand with (a shared store's decision), so that it still runs
     * here if this store has to decide alone before it ends.
     */
    public void mirrorCooldown(TrafficDemand demand, QuotaDecision.CooldownBlock block, Instant at) {
        long until = at.toEpochMilli() + block.retryAfter().toMillis();
        BehaviourSample sample = demand.behaviour();
        if (block.behavioural()) {
            if (sample != null && sample.scope().equals(block.scope())) {
                state(sample.scope().withRule(BEHAVIOUR), () -> new BehaviourState(sample.rule())).holdUntil(until);
            }
        } else if (demand.cooldownScopes().contains(block.scope())) {
            state(block.scope().withRule(COOLDOWN), () -> new CooldownState(demand.cooldown())).holdUntil(until);
        }
    }

    /** Gives back the slots of an admitted request. Idempotence is the caller's (release each lease once). */
    public void release(SlotLease lease) {
        for (Bucket slot : lease.slots()) {
            QuotaState state = states.get(slot.key());
            if (state instanceof SlotGauge gauge && !gauge.release()) {
                states.remove(slot.key());
            }
        }
    }

    /** Requests in flight in one concurrency bucket (for gauges and tests). */
    public long inFlight(Bucket slot) {
        return states.get(slot.key()) instanceof SlotGauge gauge ? gauge.inFlight() : 0;
    }

    /**
     * Records the request-limit blocks of a refusal; answers the cooldown one of them started (the longest), which
     * then refuses this request with its whole length, or null.
     */
    private QuotaDecision.CooldownBlock recordBlocks(TrafficDemand demand, List<CheckState> states, long now) {
        QuotaDecision.CooldownBlock started = null;
        java.util.Set<Bucket> blocked = new java.util.HashSet<>();
        for (CheckState state : states) {
            // One refusal is one block of its scope, however many of the scope's windows (minute, burst) are full:
            // an audit found a refusal by both counted twice, starting the cooldown at the second.
            if (!state.passed() && state.check() instanceof QuotaCheck.Requests r && r.cooldownScope() != null
                    && blocked.add(r.cooldownScope())) {
                Bucket bucket = r.cooldownScope().withRule(COOLDOWN);
                CooldownState cooldown = state(bucket, () -> new CooldownState(demand.cooldown()));
                long length = cooldown.recordBlock(now);
                if (length > 0 && (started == null || length > started.retryAfter().toMillis())) {
                    started = new QuotaDecision.CooldownBlock(r.cooldownScope(), Duration.ofMillis(length), false);
                }
            }
        }
        return started;
    }

    private QuotaState counterOf(QuotaCheck check) {
        if (check instanceof QuotaCheck.Requests r) {
            return state(r.bucket(), () -> new SlidingWindowLog(r.window().toMillis()));
        }
        if (check instanceof QuotaCheck.Distinct d) {
            return state(d.bucket(), () -> new DistinctLog(d.window().toMillis()));
        }
        if (check instanceof QuotaCheck.Concurrency c) {
            return state(c.bucket(), SlotGauge::new);
        }
        QuotaCheck.Tokens t = (QuotaCheck.Tokens) check;
        return state(t.bucket(), () -> new TwoWindowCounter(t.window().toMillis()));
    }

    private static CheckState evaluate(QuotaCheck check, QuotaState counter, long now) {
        if (check instanceof QuotaCheck.Requests r) {
            SlidingWindowLog log = (SlidingWindowLog) counter;
            return state(check, log.used(now), log.waitMillis(now, r.limit()), log.resetMillis(now));
        }
        if (check instanceof QuotaCheck.Distinct d) {
            DistinctLog log = (DistinctLog) counter;
            return state(check, log.used(now), log.waitMillis(now, d.member(), d.limit()), log.resetMillis(now));
        }
        if (check instanceof QuotaCheck.Concurrency c) {
            SlotGauge gauge = (SlotGauge) counter;
            // When a slot frees up is unknown: ask the client to come back in a second.
            return state(check, gauge.inFlight(), gauge.hasRoom(c.limit()) ? 0 : 1000, 0);
        }
        QuotaCheck.Tokens t = (QuotaCheck.Tokens) check;
        TwoWindowCounter tokens = (TwoWindowCounter) counter;
        return state(check, tokens.estimate(now), tokens.waitMillis(now, t.limit(), t.tokens()),
                tokens.resetMillis(now));
    }

    private void record(QuotaCheck check, QuotaState counter, long now) {
        if (check instanceof QuotaCheck.Requests r) {
            ((SlidingWindowLog) counter).record(now, r.limit());
        } else if (check instanceof QuotaCheck.Distinct d) {
            ((DistinctLog) counter).record(now, d.member());
        } else if (check instanceof QuotaCheck.Concurrency) {
            ((SlotGauge) counter).acquire();
            states.put(check.bucket().key(), counter); // in use now: it must not be forgotten
        } else {
            ((TwoWindowCounter) counter).add(now, ((QuotaCheck.Tokens) check).tokens());
        }
    }

    private static CheckState state(QuotaCheck check, long used, long waitMillis, long resetMillis) {
        return new CheckState(check, used, Duration.ofMillis(Math.max(0, waitMillis)),
                Duration.ofMillis(Math.max(0, resetMillis)));
    }

    @SuppressWarnings("unchecked")
    private <T extends QuotaState> T state(Bucket bucket, Supplier<T> create) {
        QuotaState existing = states.get(bucket.key());
        if (existing != null) {
            return (T) existing;
        }
        T created = create.get();
        states.put(bucket.key(), created);
        return created;
    }
}
