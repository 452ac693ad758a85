package dev.tollgate.domain.quota;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What each kind of check does while the shared counter store cannot be reached: {@link Mode#LOCAL} counts in
 * this instance alone against its share of the limit (limit ÷ instances, so all instances together stay within
 * it), {@link Mode#CLOSED} refuses the request as temporarily unavailable. Money is never in this store: the
 * prepaid balance and key limits are checked in the database and fail closed on their own.
 */
public record StoreFailurePolicy(Mode requests, Mode concurrency, Mode distinct, Mode tokens, Mode cooldowns) {

    public enum Mode {
        LOCAL,
        CLOSED
    }

    public static final StoreFailurePolicy LOCAL_SHARE = new StoreFailurePolicy(Mode.LOCAL, Mode.LOCAL, Mode.LOCAL,
            Mode.LOCAL, Mode.LOCAL);

    public StoreFailurePolicy {
        Objects.requireNonNull(requests);
        Objects.requireNonNull(concurrency);
        Objects.requireNonNull(distinct);
        Objects.requireNonNull(tokens);
        Objects.requireNonNull(cooldowns);
    }

    /** Whether some check of {@code demand} must fail closed. */
    public boolean failsClosed(TrafficDemand demand) {
        Set<Mode> modes = EnumSet.noneOf(Mode.class);
        for (QuotaCheck check : demand.checks()) {
            if (check instanceof QuotaCheck.Requests) {
                modes.add(requests);
            } else if (check instanceof QuotaCheck.Concurrency) {
                modes.add(concurrency);
            } else if (check instanceof QuotaCheck.Distinct) {
                modes.add(distinct);
            } else if (check.blocking()) {
                modes.add(tokens);
            }
        }
        if (!demand.cooldownScopes().isEmpty() || demand.behaviour() != null) {
            modes.add(cooldowns);
        }
        return modes.contains(Mode.CLOSED);
    }
}
