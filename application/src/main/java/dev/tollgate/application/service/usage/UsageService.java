package dev.tollgate.application.service.usage;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.usage.ActivityPage;
import dev.tollgate.application.port.in.usage.BalanceStatement;
import dev.tollgate.application.port.in.usage.BalanceStatement.Line;
import dev.tollgate.application.port.in.usage.ListActivityUseCase;
import dev.tollgate.application.port.in.usage.UsageFilter;
import dev.tollgate.application.port.in.usage.UsageReport;
import dev.tollgate.application.port.in.usage.ViewBalanceUseCase;
import dev.tollgate.application.port.in.usage.ViewUsageUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.application.port.out.PaymentProvider;
import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.application.port.out.UsageQueries.DailyUsage;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Service: what the dashboard shows about an account's money — usage per day, the activity of its requests and the
 * ledger of credits and spend. Ownership is checked here: a key filter naming a key of another account (or no key)
 * matches nothing, so no question ever reaches another account's rows.
 */
public final class UsageService implements ViewUsageUseCase, ListActivityUseCase, ViewBalanceUseCase {

    /** Most credits a statement lists. */
    static final int STATEMENT_CREDITS = 500;

    private final AccountRepository accounts;
    private final ApiKeyRepository apiKeys;
    private final UsageQueries usage;
    private final CreditLedger credits;
    private final PaymentProvider payments;
    private final Clock clock;

    public UsageService(AccountRepository accounts, ApiKeyRepository apiKeys, UsageQueries usage,
            CreditLedger credits, PaymentProvider payments, Clock clock) {
        this.accounts = accounts;
        this.apiKeys = apiKeys;
        this.usage = usage;
        this.credits = credits;
        this.payments = payments;
        this.clock = clock;
    }

    @Override
    public UsageReport usage(AccountId account, UsageFilter filter, int days) {
        int period = Math.max(1, Math.min(MAX_DAYS, days));
        Usd balance = balanceOf(account);
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        LocalDate first = today.minusDays(period - 1L);
        List<String> models = usage.models(account);
        Map<LocalDate, DailyUsage> byDay = new HashMap<>();
        Optional<UsageQueries.Filter> resolved = resolve(account, filter);
        if (resolved.isPresent()) {
            for (DailyUsage day : usage.daily(account, resolved.get(), startOf(first), startOf(today.plusDays(1)))) {
                byDay.put(day.day(), day);
            }
        }
        List<DailyUsage> series = new ArrayList<>(period);
        Usd spend = Usd.ZERO;
        long tokens = 0;
        long requests = 0;
        for (LocalDate day = first; !day.isAfter(today); day = day.plusDays(1)) {
            DailyUsage found = byDay.getOrDefault(day, new DailyUsage(day, Usd.ZERO, 0, 0, 0));
            series.add(found);
            spend = spend.plus(found.spend());
            tokens += found.totalTokens();
            requests += found.requests();
        }
        return new UsageReport(balance, series, spend, tokens, requests, models);
    }

    @Override
    public ActivityPage activity(AccountId account, UsageFilter filter, int offset, int pageSize) {
        int size = Math.max(1, Math.min(MAX_PAGE, pageSize));
        int from = Math.max(0, Math.min(MAX_OFFSET, offset));
        Optional<UsageQueries.Filter> resolved = resolve(account, filter);
        if (resolved.isEmpty()) {
            return new ActivityPage(List.of(), from, false);
        }
        List<UsageQueries.Activity> rows = usage.activity(account, resolved.get(), from, size + 1);
        boolean more = rows.size() > size && from + size <= MAX_OFFSET;
        return new ActivityPage(rows.subList(0, Math.min(size, rows.size())), from, more);
    }

    @Override
    public BalanceStatement statement(AccountId account, int days) {
        int period = Math.max(1, Math.min(MAX_DAYS, days));
        Instant now = clock.instant();
        Usd balance = balanceOf(account);
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        LocalDate first = today.minusDays(period - 1L);
        Instant from = startOf(first);
        List<Line> lines = new ArrayList<>();
        for (AccountCredit credit : credits.history(account, 0, STATEMENT_CREDITS)) {
            if (!credit.createdAt().isBefore(from)) {
                lines.add(new Line(credit.createdAt(), Line.Kind.CREDIT, credit.amount(), credit.note(),
                        credit.balanceAfter(), 0));
            }
        }
        for (DailyUsage day : usage.daily(account, UsageQueries.Filter.ALL, from, startOf(today.plusDays(1)))) {
            if (day.requests() > 0) {
                Instant endOfDay = startOf(day.day().plusDays(1)).minusMillis(1);
                lines.add(new Line(endOfDay.isAfter(now) ? now : endOfDay, Line.Kind.SPEND, day.spend(),
                        "Requests on " + day.day(), null, day.requests()));
            }
        }
        lines.sort(Comparator.comparing(Line::at).reversed());
        return new BalanceStatement(balance, credits.total(account), usage.totalSpend(account), lines, first,
                payments.topUp(account));
    }

    private Usd balanceOf(AccountId account) {
        return accounts.findById(account).orElseThrow(AccountNotFoundException::new).balance();
    }

    /** The store's filter for the account, or empty when the filter names a key that is not the account's. */
    private Optional<UsageQueries.Filter> resolve(AccountId account, UsageFilter filter) {
        if (filter.key() == null) {
            return Optional.of(new UsageQueries.Filter(null, filter.model()));
        }
        return apiKeys.findByHash(filter.key())
                .filter(key -> key.accountId().equals(account))
                .map(ApiKey::id)
                .map(id -> new UsageQueries.Filter(id, filter.model()));
    }

    private static Instant startOf(LocalDate day) {
        return day.atStartOfDay(ZoneOffset.UTC).toInstant();
    }
}
