package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UsdTest {

    private static Usd dollars(String amount) {
        return Usd.ofDollars(new BigDecimal(amount));
    }

    @ParameterizedTest(name = "{0} USD = {1} µUSD")
    @CsvSource({
            "0, 0",
            "1, 1000000",
            "10, 10000000",
            "0.25, 250000",
            "0.000001, 1",
            "12.000001, 12000001",
            // A JavaScript 0.1 + 0.2 arrives as this; it must be exactly 0.30 USD.
            "0.30000000000000004, 300000",
            // Half-up on the seventh decimal.
            "0.0000005, 1",
            "0.00000049999, 0",
            "0.0000004, 0",
            "1.0000015, 1000002",
            "1.0000014999, 1000001",
            "2.5E-6, 3",
            "1E+2, 100000000",
    })
    void ofDollarsRoundsFractionsOfAMicroDollarHalfUp(String amount, long expectedMicros) {
        assertEquals(expectedMicros, dollars(amount).micros());
    }

    @Test
    void ofDollarsAndOfMicrosAgree() {
        assertEquals(Usd.ofMicros(300_000), dollars("0.3"));
        assertEquals(dollars("0.3"), dollars("0.30000000000000004"));
        assertEquals(Usd.ZERO, dollars("0.000"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-0.000001", "-0.0000001", "-1E+3"})
    void negativeDollarAmountsAreRefused(String amount) {
        assertThrows(IllegalArgumentException.class, () -> dollars(amount));
    }

    @Test
    void aTinyOrHugeAmountWrittenWithAnEnormousExponentIsDecidedWithoutExpandingIt() {
        // Rounding these by setScale would compute 10^100000000 (minutes of CPU): they are decided by magnitude.
        assertEquals(Usd.ZERO, Usd.ofDollars(new BigDecimal("1e-100000000")));
        assertEquals(Usd.ZERO, Usd.ofDollars(new BigDecimal("1e-2147483647")));
        assertEquals(Usd.ZERO, Usd.ofDollars(new BigDecimal("0.00000004")));
        assertEquals(Usd.ofMicros(1), Usd.ofDollars(new BigDecimal("0.0000005")), "half a micro rounds up");
        assertThrows(IllegalArgumentException.class, () -> Usd.ofDollars(new BigDecimal("1e2147483647")));
        assertThrows(IllegalArgumentException.class, () -> Usd.ofDollars(new BigDecimal("1e100000000")));
    }

    @Test
    void negativeMicrosAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Usd(-1));
        assertThrows(IllegalArgumentException.class, () -> Usd.ofMicros(Long.MIN_VALUE));
    }

    @Test
    void amountsBeyondTheLongRangeAreRefusedRatherThanWrapped() {
        assertThrows(IllegalArgumentException.class, () -> dollars("1E+20"));
        assertEquals(Long.MAX_VALUE, Usd.ofDollars(BigDecimal.valueOf(Long.MAX_VALUE, 6)).micros());
    }

    @ParameterizedTest(name = "{0} µUSD -> \"{1}\"")
    @CsvSource({
            "0, 0",
            "1, 0.000001",
            "10, 0.00001",
            "250000, 0.25",
            "1000000, 1",
            "5000000, 5",
            "10000000, 10",
            "100000000, 100",
            "1000000000000, 1000000",
            "12000001, 12.000001",
            "12500000, 12.5",
            "300000, 0.3",
    })
    void toDollarsHasNoSuperfluousZerosAndNoExponent(long micros, String expected) {
        BigDecimal value = Usd.ofMicros(micros).toDollars();
        // toString() is what a JSON writer may use; it must not turn 10 into 1E+1.
        assertEquals(expected, value.toString());
        assertEquals(expected, value.toPlainString());
        assertEquals("$" + expected, Usd.ofMicros(micros).toString());
    }

    @Test
    void toDollarsNeverUsesExponentFormAndRoundTrips() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            // Mix of round amounts (many trailing zeros) and arbitrary ones.
            long micros = i % 2 == 0
                    ? (long) Math.pow(10, random.nextInt(16)) * random.nextInt(1, 10)
                    : random.nextLong(0, Long.MAX_VALUE);
            Usd amount = Usd.ofMicros(micros);
            String text = amount.toDollars().toString();
            assertFalse(text.contains("E") || text.contains("e"), () -> micros + " rendered as " + text);
            assertTrue(amount.toDollars().scale() >= 0 && amount.toDollars().scale() <= 6, text);
            assertEquals(amount, Usd.ofDollars(new BigDecimal(text)), text);
        }
    }

    @Test
    void plusAddsExactly() {
        assertEquals(dollars("0.3"), dollars("0.1").plus(dollars("0.2")));
        assertEquals(Usd.ofMicros(3), Usd.ofMicros(1).plus(Usd.ofMicros(2)));
        assertEquals(dollars("7"), dollars("7").plus(Usd.ZERO));
    }

    @Test
    void plusRefusesToOverflow() {
        assertThrows(ArithmeticException.class, () -> Usd.ofMicros(Long.MAX_VALUE).plus(Usd.ofMicros(1)));
    }

    @Test
    void minusFloorZeroSubtractsButNeverGoesBelowZero() {
        assertEquals(dollars("6.5"), dollars("10").minusFloorZero(dollars("3.5")));
        assertEquals(Usd.ofMicros(1), Usd.ofMicros(2).minusFloorZero(Usd.ofMicros(1)));
        assertSame(Usd.ZERO, dollars("10").minusFloorZero(dollars("10")));
        assertSame(Usd.ZERO, dollars("10").minusFloorZero(dollars("10.000001")));
        assertSame(Usd.ZERO, Usd.ZERO.minusFloorZero(Usd.ofMicros(Long.MAX_VALUE)));
        assertEquals(dollars("10"), dollars("10").minusFloorZero(Usd.ZERO));
    }

    @Test
    void zeroAndPositiveAndOrdering() {
        assertTrue(Usd.ZERO.isZero());
        assertFalse(Usd.ZERO.isPositive());
        assertTrue(Usd.ofMicros(1).isPositive());
        assertFalse(Usd.ofMicros(1).isZero());
        assertTrue(dollars("0.999999").compareTo(dollars("1")) < 0);
        assertTrue(dollars("1").compareTo(dollars("0.999999")) > 0);
        assertEquals(0, dollars("1.0").compareTo(dollars("1")));
    }
}
