package dev.tollgate.domain.apikey;

import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Usd;
import java.util.Objects;
import java.util.Optional;

/**
 * Value object: a key's USD spend cap and its reset period; {@code reset == null} is a lifetime total
 * (§4.1 rule 1). The cap is a positive amount (§2.1).
 */
public record SpendLimit(Usd amount, LimitReset reset) {

    public SpendLimit {
        Objects.requireNonNull(amount, "limit amount");
        if (!amount.isPositive()) {
            throw new DomainRuleViolation("limit", "limit must be a positive USD amount (at least 0.000001)");
        }
    }

    public static SpendLimit lifetime(Usd amount) {
        return new SpendLimit(amount, null);
    }

    public Optional<LimitReset> resetPeriod() {
        return Optional.ofNullable(reset);
    }
}
