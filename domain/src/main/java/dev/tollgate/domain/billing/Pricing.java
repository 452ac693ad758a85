package dev.tollgate.domain.billing;

import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.shared.Usd;
import java.util.Collection;

/**
 * The one rounding rule of billing: the cost of a request is (prompt × input price + completion × output price)
 * per million tokens, rounded <em>up</em> to the next micro-dollar, computed in integers.
 */
public final class Pricing {

    /** No request is priced above this many tokens on either side (keeps every product inside a long). */
    public static final long MAX_TOKENS = 100_000_000L;
    private static final long MILLION = 1_000_000L;

    private Pricing() {
    }

    public static Usd cost(ProviderRoute route, TokenUsage usage) {
        if (usage.promptTokens() > MAX_TOKENS || usage.completionTokens() > MAX_TOKENS) {
            throw new IllegalArgumentException("token counts above " + MAX_TOKENS + " cannot be priced");
        }
        long microMillionths = Math.addExact(
                Math.multiplyExact(usage.promptTokens(), route.inputPrice().microsPerMillionTokens()),
                Math.multiplyExact(usage.completionTokens(), route.outputPrice().microsPerMillionTokens()));
        return Usd.ofMicros(-Math.floorDiv(-microMillionths, MILLION)); // ceiling division (JDK 17 has no Math.ceilDiv)
    }

    /**
     * The hold for a request that may be served by any of {@code routes}: the highest possible cost of the
     * estimated prompt plus the full output allowance, so that no fallback can cost more than was held.
     */
    public static Usd maximumCost(Collection<ProviderRoute> routes, long promptTokens, long maxOutputTokens) {
        TokenUsage worst = new TokenUsage(promptTokens, maxOutputTokens);
        return routes.stream().map(r -> cost(r, worst)).max(Usd::compareTo).orElse(Usd.ZERO);
    }

    /** What is actually charged: the cost of the tokens used, never more than was held (so no cap is exceeded). */
    public static Usd charge(Usd actualCost, Usd held) {
        return actualCost.compareTo(held) <= 0 ? actualCost : held;
    }
}
