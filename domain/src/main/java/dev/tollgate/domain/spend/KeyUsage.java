package dev.tollgate.domain.spend;

import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.Usd;
import java.util.Objects;
import java.util.Optional;

/**
 * Value object: what a key has spent in total and in the current daily, weekly and monthly windows
 * (§2.1 usage fields), as seen at one instant.
 */
public record KeyUsage(Usd total, Usd daily, Usd weekly, Usd monthly) {

    public static final KeyUsage NONE = new KeyUsage(Usd.ZERO, Usd.ZERO, Usd.ZERO, Usd.ZERO);

    public KeyUsage {
        Objects.requireNonNull(total);
        Objects.requireNonNull(daily);
        Objects.requireNonNull(weekly);
        Objects.requireNonNull(monthly);
    }

    /** Usage in the window a limit is measured against: its reset period, or the lifetime total. */
    public Usd countedAgainst(SpendLimit limit) {
        return limit.resetPeriod().map(this::inWindow).orElse(total);
    }

    public Usd inWindow(LimitReset period) {
        return switch (period) {
            case DAILY -> daily;
            case WEEKLY -> weekly;
            case MONTHLY -> monthly;
        };
    }

    /** §2.1 limit_remaining: the part of the cap not yet used in its window, never below zero; none without a cap. */
    public Optional<Usd> limitRemaining(Optional<SpendLimit> limit) {
        return limit.map(l -> l.amount().minusFloorZero(countedAgainst(l)));
    }
}
