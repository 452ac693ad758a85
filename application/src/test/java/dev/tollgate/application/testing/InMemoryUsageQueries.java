package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * In-memory fake of {@link UsageQueries}: reads the ledger rows of an {@link InMemoryBillingLedger} and the key names
 * of an {@link InMemoryApiKeyRepository}, as the PostgreSQL adapter reads {@code request_ledger} and {@code api_key}.
 */
public final class InMemoryUsageQueries implements UsageQueries {

    private final InMemoryBillingLedger ledger;
    private final InMemoryApiKeyRepository keys;

    public InMemoryUsageQueries(InMemoryBillingLedger ledger, InMemoryApiKeyRepository keys) {
        this.ledger = ledger;
        this.keys = keys;
    }

    private List<InMemoryBillingLedger.LedgerRow> rows(AccountId account, Filter filter) {
        Predicate<InMemoryBillingLedger.LedgerRow> matches = r -> r.accountId().equals(account)
                && (filter.key() == null || filter.key().equals(r.apiKeyId()))
                && (filter.model() == null || filter.model().equals(r.model()));
        return ledger.ledgerRows().stream().filter(matches).toList();
    }

    @Override
    public List<DailyUsage> daily(AccountId account, Filter filter, Instant from, Instant to) {
        Map<LocalDate, DailyUsage> days = new TreeMap<>();
        for (InMemoryBillingLedger.LedgerRow row : rows(account, filter)) {
            if (row.admittedAt().isBefore(from) || !row.admittedAt().isBefore(to)) {
                continue;
            }
            LocalDate day = LocalDate.ofInstant(row.admittedAt(), ZoneOffset.UTC);
            DailyUsage sum = days.getOrDefault(day, new DailyUsage(day, Usd.ZERO, 0, 0, 0));
            days.put(day, new DailyUsage(day, sum.spend().plus(row.cost()),
                    sum.promptTokens() + row.usage().promptTokens(),
                    sum.completionTokens() + row.usage().completionTokens(), sum.requests() + 1));
        }
        return new ArrayList<>(days.values());
    }

    @Override
    public List<Activity> activity(AccountId account, Filter filter, int offset, int limit) {
        return rows(account, filter).stream()
                .sorted(Comparator.comparing(InMemoryBillingLedger.LedgerRow::admittedAt)
                        .thenComparing(InMemoryBillingLedger.LedgerRow::requestId).reversed())
                .skip(offset).limit(limit)
                .map(row -> {
                    Optional<ApiKey> key = keys.findById(row.apiKeyId());
                    return new Activity(row.requestId(), row.admittedAt(), row.finishedAt(), row.apiKeyId(),
                            key.map(k -> k.name().value()).orElse(null), key.map(ApiKey::label).orElse(null),
                            row.model(), row.provider(), row.usage().promptTokens(), row.usage().completionTokens(),
                            row.cost(), row.status(), row.latencyMillis());
                }).toList();
    }

    @Override
    public List<String> models(AccountId account) {
        return rows(account, Filter.ALL).stream().map(InMemoryBillingLedger.LedgerRow::model).distinct().sorted()
                .toList();
    }

    @Override
    public Usd totalSpend(AccountId account) {
        return rows(account, Filter.ALL).stream().map(InMemoryBillingLedger.LedgerRow::cost)
                .reduce(Usd.ZERO, Usd::plus);
    }
}
