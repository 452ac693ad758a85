package dev.tollgate.domain.shared;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Value object: an amount of US dollars held as an integer number of micro-dollars (1 USD = 1,000,000 µUSD).
 *
 * <p>Money never passes through {@code double}: JSON and configuration edges convert with {@link BigDecimal}.
 * Amounts are never negative; a difference that would go below zero is reported as zero by
 * {@link #minusFloorZero(Usd)}.
 */
public record Usd(long micros) implements Comparable<Usd> {

    public static final long MICROS_PER_USD = 1_000_000L;
    public static final Usd ZERO = new Usd(0);

    public Usd {
        if (micros < 0) {
            throw new IllegalArgumentException("a USD amount cannot be negative: " + micros + " µUSD");
        }
    }

    public static Usd ofMicros(long micros) {
        return new Usd(micros);
    }

    /**
     * Converts a decimal dollar amount; fractions of a micro-dollar round half-up, so a value such as
     * {@code 0.30000000000000004} (a JavaScript sum) becomes exactly 0.3.
     */
    public static Usd ofDollars(BigDecimal dollars) {
        if (dollars.signum() < 0) {
            throw new IllegalArgumentException("a USD amount cannot be negative: " + dollars);
        }
        long integerDigits = (long) dollars.precision() - dollars.scale(); // long: the scale may be ±2^31
        if (dollars.signum() == 0 || integerDigits < -6) {
            // Below 0.0000001: rounds to nothing. Said before rounding, which for a tiny value written with an
            // enormous exponent (1e-100000000) would compute a power of ten of as many digits.
            return ZERO;
        }
        if (integerDigits > 19) {
            throw new IllegalArgumentException("a USD amount is too large: " + dollars.toString());
        }
        BigDecimal micros = dollars.movePointRight(6).setScale(0, RoundingMode.HALF_UP);
        if (micros.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("a USD amount is too large: " + dollars);
        }
        return new Usd(micros.longValueExact());
    }

    /** Dollars with no superfluous zeros and never in exponent form (5, 0.25, 12.000001). */
    public BigDecimal toDollars() {
        BigDecimal value = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        return value.scale() < 0 ? value.setScale(0) : value;
    }

    public boolean isZero() {
        return micros == 0;
    }

    public boolean isPositive() {
        return micros > 0;
    }

    public Usd plus(Usd other) {
        return new Usd(Math.addExact(micros, other.micros));
    }

    public Usd minusFloorZero(Usd other) {
        return micros <= other.micros ? ZERO : new Usd(micros - other.micros);
    }

    @Override
    public int compareTo(Usd other) {
        return Long.compare(micros, other.micros);
    }

    @Override
    public String toString() {
        return "$" + toDollars().toPlainString();
    }
}
