package dev.tollgate.domain.spend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.Usd;
import java.math.BigDecimal;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyUsageTest {

    private static Usd usd(String dollars) {
        return Usd.ofDollars(new BigDecimal(dollars));
    }

    /** Different amounts in every window, so picking the wrong one shows. */
    private static final KeyUsage USAGE = new KeyUsage(usd("40"), usd("1.25"), usd("3.5"), usd("12"));

    @Test
    void inWindowPicksTheMatchingUsage() {
        assertEquals(usd("1.25"), USAGE.inWindow(LimitReset.DAILY));
        assertEquals(usd("3.5"), USAGE.inWindow(LimitReset.WEEKLY));
        assertEquals(usd("12"), USAGE.inWindow(LimitReset.MONTHLY));
    }

    @Test
    void limitRemainingIsMeasuredAgainstTheResetPeriod() {
        assertEquals(Optional.of(usd("8.75")), USAGE.limitRemaining(Optional.of(new SpendLimit(usd("10"),
                LimitReset.DAILY))));
        assertEquals(Optional.of(usd("6.5")), USAGE.limitRemaining(Optional.of(new SpendLimit(usd("10"),
                LimitReset.WEEKLY))));
        assertEquals(Optional.of(usd("8")), USAGE.limitRemaining(Optional.of(new SpendLimit(usd("20"),
                LimitReset.MONTHLY))));
    }

    @Test
    void aLifetimeLimitIsMeasuredAgainstTheTotal() {
        assertEquals(Optional.of(usd("60")), USAGE.limitRemaining(Optional.of(SpendLimit.lifetime(usd("100")))));
        assertEquals(usd("40"), USAGE.countedAgainst(SpendLimit.lifetime(usd("100"))));
    }

    @Test
    void limitRemainingIsClampedAtZero() {
        assertEquals(Optional.of(Usd.ZERO), USAGE.limitRemaining(Optional.of(new SpendLimit(usd("10"),
                LimitReset.MONTHLY))));
        assertEquals(Optional.of(Usd.ZERO), USAGE.limitRemaining(Optional.of(SpendLimit.lifetime(usd("40")))));
        assertEquals(Optional.of(Usd.ZERO), USAGE.limitRemaining(Optional.of(SpendLimit.lifetime(usd("0.000001")))));
        assertEquals(Optional.of(Usd.ofMicros(1)),
                USAGE.limitRemaining(Optional.of(SpendLimit.lifetime(usd("40.000001")))));
    }

    @Test
    void noLimitMeansNoLimitRemaining() {
        assertEquals(Optional.empty(), USAGE.limitRemaining(Optional.empty()));
        assertEquals(Optional.empty(), KeyUsage.NONE.limitRemaining(Optional.empty()));
    }

    @Test
    void withoutUsageTheWholeLimitRemains() {
        for (LimitReset reset : LimitReset.values()) {
            assertEquals(Optional.of(usd("5")), KeyUsage.NONE.limitRemaining(Optional.of(new SpendLimit(usd("5"),
                    reset))));
        }
        assertEquals(Optional.of(usd("5")), KeyUsage.NONE.limitRemaining(Optional.of(SpendLimit.lifetime(usd("5")))));
    }

    @Test
    void allAmountsAreRequired() {
        assertThrows(NullPointerException.class, () -> new KeyUsage(null, Usd.ZERO, Usd.ZERO, Usd.ZERO));
        assertThrows(NullPointerException.class, () -> new KeyUsage(Usd.ZERO, Usd.ZERO, Usd.ZERO, null));
    }
}
