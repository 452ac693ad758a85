package dev.tollgate.domain.catalog;

import dev.tollgate.domain.shared.Usd;
import java.math.BigDecimal;

/**
 * Value object: a price per million tokens in micro-dollars (so $0.15 per 1M tokens is 150,000). Integer money
 * end to end; {@link #perTokenUsd()} is only for display (OpenRouter's per-token decimal strings).
 */
public record TokenPrice(long microsPerMillionTokens) {

    /** $1,000 per million tokens: far above any real price, and it keeps every cost product inside a long. */
    public static final long MAX_MICROS_PER_MILLION = 1_000_000_000L;
    public static final TokenPrice FREE = new TokenPrice(0);

    public TokenPrice {
        if (microsPerMillionTokens < 0 || microsPerMillionTokens > MAX_MICROS_PER_MILLION) {
            throw new IllegalArgumentException("a token price is 0 to $1000 per million tokens, got "
                    + microsPerMillionTokens + " µUSD per million");
        }
    }

    public static TokenPrice usdPerMillion(BigDecimal usd) {
        return new TokenPrice(Usd.ofDollars(usd).micros());
    }

    /** USD per single token, exact, e.g. {@code 0.00000015}. */
    public BigDecimal perTokenUsd() {
        BigDecimal value = BigDecimal.valueOf(microsPerMillionTokens, 12).stripTrailingZeros();
        return value.scale() < 0 ? value.setScale(0) : value;
    }
}
