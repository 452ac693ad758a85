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

    /** A scope in cooldown refused the request; {@code behavioural} tells which of the two §8.1 cooldowns. */
    public record CooldownBlock(Bucket scope, Duration retryAfter, boolean behavioural) {
        public CooldownBlock {
            Objects.requireNonNull(scope);
            Objects.requireNonNull(retryAfter);
        }
    }
}
