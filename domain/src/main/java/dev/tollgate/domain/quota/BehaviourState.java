package dev.tollgate.domain.quota;

import java.util.HashMap;
import java.util.Map;

/**
 * §8.1 behavioural cooldown of one key, source IP and model: sliding counts of admitted requests per prompt
 * fingerprint and of minimal requests, and the end of a running cooldown. Not thread-safe.
 */
public final class BehaviourState implements QuotaState {

    private final BehaviourRule rule;
    private final Map<Long, TwoWindowCounter> byFingerprint = new HashMap<>();
    private final TwoWindowCounter minimal;
    private long until = Long.MIN_VALUE;
    private long lastPrune;

    public BehaviourState(BehaviourRule rule) {
        this.rule = rule;
        this.minimal = new TwoWindowCounter(rule.within().toMillis());
    }

    /** 0 when this triple is not cooling down; else the milliseconds left. */
    public long cooldownMillis(long now) {
        return until > now ? until - now : 0;
    }

    /** A cooldown another store reported: it runs here until {@code end} too (a longer one here is kept). */
    public void holdUntil(long end) {
        until = Math.max(until, end);
    }

    /** Counts one admitted request; starts the cooldown (for the next request) once a threshold is reached. */
    public void record(long now, long fingerprint, boolean isMinimal) {
        long within = rule.within().toMillis();
        if (now - lastPrune >= within) {
            byFingerprint.values().removeIf(c -> c.estimate(now) == 0);
            lastPrune = now;
        }
        TwoWindowCounter same = byFingerprint.computeIfAbsent(fingerprint, f -> new TwoWindowCounter(within));
        same.add(now, 1);
        boolean trips = same.estimate(now) >= rule.identical();
        if (isMinimal) {
            minimal.add(now, 1);
            trips |= minimal.estimate(now) >= rule.minimal();
        }
        if (trips) {
            until = now + rule.cooldown().toMillis();
        }
    }

    @Override
    public long idleTtlMillis() {
        return 2 * rule.within().toMillis() + rule.cooldown().toMillis();
    }
}
