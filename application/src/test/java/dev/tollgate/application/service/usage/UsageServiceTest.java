package dev.tollgate.application.service.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.usage.ActivityPage;
import dev.tollgate.application.port.in.usage.BalanceStatement;
import dev.tollgate.application.port.in.usage.UsageFilter;
import dev.tollgate.application.port.in.usage.UsageReport;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.PaymentProvider;
import dev.tollgate.application.testing.InMemoryApiKeyRepository;
import dev.tollgate.application.testing.InMemoryBillingLedger;
import dev.tollgate.application.testing.InMemoryCreditLedger;
import dev.tollgate.application.testing.InMemoryUsageQueries;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.billing.CreditSource;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The usage, activity and balance use cases on in-memory fakes: every day of the period (empty days as zeros), key
 * filters only for the account's own keys, paging with a "more" flag, and the statement of credits and daily spend.
 */
class UsageServiceTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

    private final MutableClock clock = new MutableClock(NOW);
    private PersistenceStores stores;
    private InMemoryBillingLedger ledger;
    private InMemoryCreditLedger credits;
    private UsageService service;
    private Optional<PaymentProvider.TopUp> topUp = Optional.empty();

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        ledger = new InMemoryBillingLedger(stores.spend());
        credits = new InMemoryCreditLedger();
        service = new UsageService(stores.accounts(), stores.apiKeys(),
                new InMemoryUsageQueries(ledger, (InMemoryApiKeyRepository) stores.apiKeys()), credits,
                account -> topUp, clock);
    }

    private Account funded() {
        Account account = stores.newAccount(NOW.minus(Duration.ofDays(100)));
        stores.accounts().credit(account.id(), Usd.ofMicros(50_000_000), NOW);
        ledger.openAccount(account.id(), Usd.ofMicros(50_000_000));
        return account;
    }

    private ApiKey key(Account account, String name) {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, new SecureRandom());
        ApiKey key = ApiKey.issue(account.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName(name), null,
                null, null, NOW.minus(Duration.ofDays(100)));
        stores.apiKeys().insert(key);
        return key;
    }

    private void request(ApiKey key, String model, long micros, Instant at) {
        String id = "req_" + UUID.randomUUID();
        ledger.placeHold(new BillingLedger.HoldRequest(id, key.accountId(), key.id(), Usd.ofMicros(micros), at,
                at.plus(Duration.ofMinutes(15))));
        ledger.settle(new BillingLedger.Settlement(id, key.hash(), model, "sim", new TokenUsage(3, 4),
                Usd.ofMicros(micros), "completed", at.plusMillis(100), 100L, 10L, true));
    }

    @Test
    void theReportHasEveryDayOfThePeriodWithTotals() {
        Account account = funded();
        ApiKey key = key(account, "k");
        request(key, "m/a", 1_500, NOW.minus(Duration.ofDays(2)));
        request(key, "m/a", 500, NOW.minus(Duration.ofDays(2)));
        request(key, "m/b", 7, NOW);
        request(key, "m/b", 1_000_000, NOW.minus(Duration.ofDays(30))); // one day before a 30-day period

        UsageReport report = service.usage(account.id(), UsageFilter.ALL, 30);
        assertEquals(30, report.days().size());
        assertEquals(LocalDate.parse("2026-02-03"), report.days().get(0).day());
        assertEquals(LocalDate.parse("2026-03-04"), report.days().get(29).day());
        assertEquals(Usd.ofMicros(2_000), report.days().get(27).spend());
        assertEquals(14, report.days().get(27).totalTokens());
        assertEquals(Usd.ZERO, report.days().get(28).spend());
        assertEquals(Usd.ofMicros(2_007), report.totalSpend());
        assertEquals(3, report.requests());
        assertEquals(21, report.totalTokens());
        assertEquals(java.util.List.of("m/a", "m/b"), report.models());
        assertEquals(stores.accounts().findById(account.id()).orElseThrow().balance(), report.balance());

        assertEquals(Usd.ofMicros(7), service.usage(account.id(), new UsageFilter(null, "m/b"), 30).totalSpend());
        assertEquals(1, service.usage(account.id(), UsageFilter.ALL, 0).days().size(), "at least one day");
    }

    @Test
    void aKeyFilterMatchesOnlyTheAccountsOwnKeys() {
        Account alice = funded();
        Account bob = funded();
        ApiKey alicesKey = key(alice, "alice");
        ApiKey bobsKey = key(bob, "bob");
        request(alicesKey, "m", 100, NOW);
        request(bobsKey, "m", 200, NOW);

        assertEquals(Usd.ofMicros(100), service.usage(alice.id(), new UsageFilter(alicesKey.hash(), null), 7)
                .totalSpend());
        assertEquals(Usd.ZERO, service.usage(alice.id(), new UsageFilter(bobsKey.hash(), null), 7).totalSpend());
        assertTrue(service.activity(alice.id(), new UsageFilter(bobsKey.hash(), null), 0, 10).entries().isEmpty());
        assertTrue(service.activity(alice.id(), new UsageFilter(new KeyHash("a".repeat(64)), null), 0, 10)
                .entries().isEmpty(), "a guessed hash");
    }

    @Test
    void activityPagesSayWhetherMoreFollow() {
        Account account = funded();
        ApiKey key = key(account, "k");
        for (int i = 0; i < 5; i++) {
            request(key, "m", 10 + i, NOW.minus(Duration.ofMinutes(10 - i)));
        }
        ActivityPage first = service.activity(account.id(), UsageFilter.ALL, 0, 2);
        assertEquals(2, first.entries().size());
        assertTrue(first.more());
        assertEquals(Usd.ofMicros(14), first.entries().get(0).cost(), "newest first");
        ActivityPage last = service.activity(account.id(), UsageFilter.ALL, 4, 2);
        assertEquals(1, last.entries().size());
        assertFalse(last.more());
        assertEquals(2, service.activity(account.id(), UsageFilter.ALL, -5, 2).entries().size(), "offset ≥ 0");
    }

    @Test
    void theStatementListsCreditsAndDailySpendNewestFirst() {
        Account account = funded();
        ApiKey key = key(account, "k");
        credits.record(AccountCredit.of(account.id(), Usd.ofMicros(25_000_000), CreditSource.OPERATOR, "top up",
                Usd.ofMicros(25_000_000), NOW.minus(Duration.ofDays(3))));
        credits.record(AccountCredit.of(account.id(), Usd.ofMicros(1_000_000), CreditSource.OPERATOR, "too old",
                Usd.ofMicros(1_000_000), NOW.minus(Duration.ofDays(200))));
        request(key, "m", 300, NOW.minus(Duration.ofDays(1)));
        request(key, "m", 200, NOW.minus(Duration.ofDays(1)));
        request(key, "m", 50, NOW);

        BalanceStatement statement = service.statement(account.id(), 90);
        assertEquals(3, statement.lines().size());
        assertEquals(BalanceStatement.Line.Kind.SPEND, statement.lines().get(0).kind());
        assertEquals(Usd.ofMicros(50), statement.lines().get(0).amount());
        assertEquals(NOW, statement.lines().get(0).at(), "today's spend so far, as of now");
        assertEquals(Usd.ofMicros(500), statement.lines().get(1).amount());
        assertEquals(2, statement.lines().get(1).requests());
        assertEquals(BalanceStatement.Line.Kind.CREDIT, statement.lines().get(2).kind());
        assertEquals("top up", statement.lines().get(2).description());
        assertEquals(Usd.ofMicros(26_000_000), statement.totalCredits(), "all credits, also before the period");
        assertEquals(Usd.ofMicros(550), statement.totalSpend());
        assertTrue(statement.topUp().isEmpty());

        topUp = Optional.of(new PaymentProvider.TopUp("Example Pay", "https://pay.example/checkout"));
        assertEquals("Example Pay", service.statement(account.id(), 90).topUp().orElseThrow().provider());
    }
}
