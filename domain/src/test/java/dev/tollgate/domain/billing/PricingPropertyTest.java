package dev.tollgate.domain.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.shared.Usd;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * G4 as a property: over 10^6 random (tokens, prices) pairs the integer pricing equals the exact rational cost
 * rounded up to the next micro-dollar (checked in {@link BigInteger}), is never below the exact cost nor a full
 * micro-dollar above it, and the charges of many requests add up with no drift however they are summed.
 */
class PricingPropertyTest {

    private static final BigInteger MILLION = BigInteger.valueOf(1_000_000);

    private static long token(SplittableRandom random) {
        // mostly realistic counts, sometimes the extremes (0 and the largest priceable count)
        return switch (random.nextInt(10)) {
            case 0 -> 0;
            case 1 -> Pricing.MAX_TOKENS;
            default -> random.nextLong(random.nextBoolean() ? 10_000 : Pricing.MAX_TOKENS + 1);
        };
    }

    private static long price(SplittableRandom random) {
        return switch (random.nextInt(10)) {
            case 0 -> 0;
            case 1 -> TokenPrice.MAX_MICROS_PER_MILLION;
            default -> random.nextLong(random.nextBoolean() ? 100_000_000 : TokenPrice.MAX_MICROS_PER_MILLION + 1);
        };
    }

    @Test
    void aMillionRandomCostsAreTheExactCostRoundedUpToOneMicroDollar() {
        SplittableRandom random = new SplittableRandom(4_2026_11_22L);
        BigInteger sumOfCharges = BigInteger.ZERO;
        long sumAsLong = 0;
        BigInteger exactSum = BigInteger.ZERO;
        for (int i = 0; i < 1_000_000; i++) {
            long prompt = token(random);
            long completion = token(random);
            long in = price(random);
            long out = price(random);
            ProviderRoute route = new ProviderRoute(new ProviderId("p"), "m", new TokenPrice(in), new TokenPrice(out),
                    ModelCapabilities.ALL);

            Usd cost = Pricing.cost(route, new TokenUsage(prompt, completion));

            BigInteger microMillionths = BigInteger.valueOf(prompt).multiply(BigInteger.valueOf(in))
                    .add(BigInteger.valueOf(completion).multiply(BigInteger.valueOf(out)));
            BigInteger[] qr = microMillionths.divideAndRemainder(MILLION);
            BigInteger expected = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
            assertEquals(expected.longValueExact(), cost.micros(), () -> "prompt " + prompt + ", completion "
                    + completion + ", prices " + in + "/" + out);
            // never below the exact cost, and less than one micro-dollar above it
            BigInteger scaled = BigInteger.valueOf(cost.micros()).multiply(MILLION);
            assertTrue(scaled.compareTo(microMillionths) >= 0);
            assertTrue(scaled.subtract(microMillionths).compareTo(MILLION) < 0);

            Usd hold = Pricing.maximumCost(java.util.List.of(route), prompt, Math.max(completion, token(random)));
            Usd charge = Pricing.charge(cost, hold);
            assertTrue(charge.compareTo(hold) <= 0, "a charge never exceeds its hold");
            assertTrue(charge.compareTo(cost) <= 0);
            sumOfCharges = sumOfCharges.add(BigInteger.valueOf(charge.micros()));
            sumAsLong = Math.addExact(sumAsLong, charge.micros() % 1_000_000_000L);
            exactSum = exactSum.add(BigInteger.valueOf(charge.micros() % 1_000_000_000L));
        }
        assertEquals(exactSum.longValueExact(), sumAsLong, "summing micro-dollars in longs drifts by nothing");
        assertTrue(sumOfCharges.signum() > 0);
    }
}
