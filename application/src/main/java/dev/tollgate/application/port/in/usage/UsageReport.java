package dev.tollgate.application.port.in.usage;

import dev.tollgate.application.port.out.UsageQueries.DailyUsage;
import dev.tollgate.domain.shared.Usd;
import java.util.List;
import java.util.Objects;

/**
 * Query result: an account's balance and its spend and tokens per UTC day over a period — every day of the period,
 * oldest first, days without requests as zeros — with the period's totals and the models the account has used.
 */
public record UsageReport(Usd balance, List<DailyUsage> days, Usd totalSpend, long totalTokens, long requests,
        List<String> models) {

    public UsageReport {
        Objects.requireNonNull(balance);
        days = List.copyOf(days);
        models = List.copyOf(models);
    }
}
