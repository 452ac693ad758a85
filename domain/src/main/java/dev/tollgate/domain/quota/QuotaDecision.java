package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A store's answer for one {@link TrafficDemand}: the state of every check (in the demand's order), the cooldown
 * that refused the request if one did, and the lease of the concurrency slots taken when it was admitted.
 */
public record QuotaDecision(List<CheckState> states, CooldownBlock cooldown, SlotLease lease) {

    public QuotaDecision {
        states = List.copyOf(states);
        Objects.requireNonNull(lease);
    }

    public boolean admitted() {
        return cooldown == null && states.stream().allMatch(CheckState::passed);
    }

    /**
     * This decision with, check by check, whichever of its state and {@code other}'s (the same checks in the same
     * order, with their own limits: an instance's share of them, say) has less left — what the rate-limit headers
     * report when both had to admit the request. The cooldown and lease stay this decision's.
     */
    public QuotaDecision tightenedBy(QuotaDecision other) {
        if (other.states.size() != states.size()) {
            throw new IllegalArgumentException("the two decisions are not of the same checks");
        }
        List<CheckState> tighter = new java.util.ArrayList<>(states.size());
        for (int i = 0; i < states.size(); i++) {
            CheckState mine = states.get(i);
            CheckState theirs = other.states.get(i);
            tighter.add(theirs.remaining() < mine.remaining() ? theirs : mine);
        }
        return new QuotaDecision(tighter, cooldown, lease);
    }

    /** A scope in cooldown refused the request; {@code behavioural} tells which of the two §8.1 cooldowns. */
    public record CooldownBlock(Bucket scope, Duration retryAfter, boolean behavioural) {
        public CooldownBlock {
            Objects.requireNonNull(scope);
            Objects.requireNonNull(retryAfter);
        }
    }
}
