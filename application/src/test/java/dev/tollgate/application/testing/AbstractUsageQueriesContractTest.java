package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.application.port.out.UsageQueries.Activity;
import dev.tollgate.application.port.out.UsageQueries.DailyUsage;
import dev.tollgate.application.port.out.UsageQueries.Filter;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link UsageQueries}: requests belong to the UTC day they were admitted; sums per day, filters by key
 * and model, activity newest first with its key's name (deleted keys too) and paging, the distinct models, the total
 * spend — and never a row of another account. Rows are written through the {@link BillingLedger} of the same store.
 */
public abstract class AbstractUsageQueriesContractTest {

    protected static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** An account with one of its keys. */
    protected record Payer(AccountId account, ApiKey key) {
    }

    protected abstract PersistenceStores stores();

    protected abstract BillingLedger ledger();

    protected abstract UsageQueries usage();

    /** Gives the account money the ledger can hold (in memory: opens it in the fake ledger). */
    protected abstract void fund(AccountId account, Usd amount);

    protected Payer newPayer(String keyName) {
        Account account = stores().newAccount(NOW.minus(Duration.ofDays(90)));
        fund(account.id(), Usd.ofMicros(100_000_000));
        return anotherKey(account.id(), keyName);
    }

    protected Payer anotherKey(AccountId account, String keyName) {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        ApiKey key = ApiKey.issue(account, KeyHasher.sha256().hash(raw), raw.label(), new KeyName(keyName), null, null,
                null, NOW.minus(Duration.ofDays(90)));
        stores().apiKeys().insert(key);
        return new Payer(account, key);
    }

    /** A settled request; returns its id. */
    protected String request(Payer payer, String model, long costMicros, long prompt, long completion,
            Instant admittedAt) {
        String id = "req_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
        assertEquals(BillingLedger.HoldOutcome.PLACED, ledger().placeHold(new BillingLedger.HoldRequest(id,
                payer.account(), payer.key().id(), Usd.ofMicros(costMicros + 1_000), admittedAt,
                NOW.plus(Duration.ofDays(365)))));
        assertTrue(ledger().settle(new BillingLedger.Settlement(id, payer.key().hash(), model, "sim",
                new TokenUsage(prompt, completion), Usd.ofMicros(costMicros), "completed",
                admittedAt.plusMillis(250), 250L, 40L, true)));
        return id;
    }

    private static Instant day(String date) {
        return LocalDate.parse(date).atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
    }

    @Test
    public void requestsAreSummedPerUtcDayOfAdmissionWithinTheRange() {
        Payer payer = newPayer("k");
        request(payer, "m/a", 100, 10, 20, day("2026-03-02").minusMillis(1)); // the 1st, last millisecond
        request(payer, "m/a", 200, 1, 2, day("2026-03-02"));
        request(payer, "m/b", 300, 3, 4, day("2026-03-02").plus(Duration.ofHours(23)));
        request(payer, "m/a", 5, 1, 1, day("2026-03-04")); // outside [from, to)

        List<DailyUsage> days = usage().daily(payer.account(), Filter.ALL, day("2026-03-01"), day("2026-03-04"));
        assertEquals(List.of(
                new DailyUsage(LocalDate.parse("2026-03-01"), Usd.ofMicros(100), 10, 20, 1),
                new DailyUsage(LocalDate.parse("2026-03-02"), Usd.ofMicros(500), 4, 6, 2)), days);
        assertEquals(30, days.get(0).totalTokens());
    }

    @Test
    public void filtersSelectOneKeyOneModelOrBoth() {
        Payer first = newPayer("first");
        Payer second = anotherKey(first.account(), "second");
        request(first, "m/a", 100, 1, 1, day("2026-03-03"));
        request(first, "m/b", 200, 1, 1, day("2026-03-03"));
        request(second, "m/a", 400, 1, 1, day("2026-03-03"));

        Instant from = day("2026-03-01");
        Instant to = day("2026-03-05");
        assertEquals(Usd.ofMicros(700), usage().daily(first.account(), Filter.ALL, from, to).get(0).spend());
        assertEquals(Usd.ofMicros(300), usage().daily(first.account(), new Filter(first.key().id(), null), from, to)
                .get(0).spend());
        assertEquals(Usd.ofMicros(500), usage().daily(first.account(), new Filter(null, "m/a"), from, to).get(0)
                .spend());
        assertEquals(Usd.ofMicros(400), usage().daily(first.account(), new Filter(second.key().id(), "m/a"), from,
                to).get(0).spend());
        assertTrue(usage().daily(first.account(), new Filter(second.key().id(), "m/b"), from, to).isEmpty());
        assertEquals(2, usage().activity(first.account(), new Filter(null, "m/a"), 0, 10).size());
        assertEquals(1, usage().activity(first.account(), new Filter(second.key().id(), null), 0, 10).size());
    }

    @Test
    public void activityIsNewestFirstWithItsKeysNameAndPages() {
        Payer payer = newPayer("backend");
        String oldest = request(payer, "m/a", 1, 1, 1, NOW.minus(Duration.ofHours(3)));
        String middle = request(payer, "m/b", 2, 5, 7, NOW.minus(Duration.ofHours(2)));
        String newest = request(payer, "m/a", 3, 1, 1, NOW.minus(Duration.ofHours(1)));

        List<Activity> all = usage().activity(payer.account(), Filter.ALL, 0, 10);
        assertEquals(List.of(newest, middle, oldest), all.stream().map(Activity::requestId).toList());
        Activity second = all.get(1);
        assertEquals("backend", second.keyName());
        assertEquals(payer.key().label(), second.keyLabel());
        assertEquals(payer.key().id(), second.keyId());
        assertEquals("m/b", second.model());
        assertEquals("sim", second.provider());
        assertEquals(5, second.promptTokens());
        assertEquals(7, second.completionTokens());
        assertEquals(Usd.ofMicros(2), second.cost());
        assertEquals("completed", second.status());
        assertEquals(250L, second.latencyMillis());
        assertEquals(NOW.minus(Duration.ofHours(2)), second.admittedAt());
        assertEquals(NOW.minus(Duration.ofHours(2)).plusMillis(250), second.finishedAt());

        assertEquals(List.of(middle), usage().activity(payer.account(), Filter.ALL, 1, 1).stream()
                .map(Activity::requestId).toList());
        assertTrue(usage().activity(payer.account(), Filter.ALL, 3, 10).isEmpty());

        ApiKey key = stores().apiKeys().findByHash(payer.key().hash()).orElseThrow();
        key.delete(NOW);
        stores().apiKeys().update(key);
        assertEquals("backend", usage().activity(payer.account(), Filter.ALL, 0, 1).get(0).keyName(),
                "a deleted key keeps its name in the activity");
    }

    @Test
    public void modelsAreDistinctAndSortedAndTheTotalIsEveryCharge() {
        Payer payer = newPayer("k");
        request(payer, "z/last", 10, 1, 1, NOW.minus(Duration.ofDays(40)));
        request(payer, "a/first", 20, 1, 1, NOW.minus(Duration.ofDays(1)));
        request(payer, "z/last", 30, 1, 1, NOW.minus(Duration.ofDays(1)));
        assertEquals(List.of("a/first", "z/last"), usage().models(payer.account()));
        assertEquals(Usd.ofMicros(60), usage().totalSpend(payer.account()));
    }

    @Test
    public void anAccountWithoutRequestsHasNothing() {
        Payer payer = newPayer("idle");
        assertTrue(usage().daily(payer.account(), Filter.ALL, day("2026-01-01"), day("2026-04-01")).isEmpty());
        assertTrue(usage().activity(payer.account(), Filter.ALL, 0, 10).isEmpty());
        assertTrue(usage().models(payer.account()).isEmpty());
        assertEquals(Usd.ZERO, usage().totalSpend(payer.account()));
    }

    @Test
    public void noQuestionEverSeesAnotherAccountsRequests() {
        Payer alice = newPayer("alice");
        Payer bob = newPayer("bob");
        request(alice, "m/alice-only", 111, 1, 1, NOW.minus(Duration.ofHours(1)));
        request(bob, "m/bob", 222, 1, 1, NOW.minus(Duration.ofHours(1)));

        Instant from = NOW.minus(Duration.ofDays(1));
        Instant to = NOW.plus(Duration.ofDays(1));
        assertEquals(Usd.ofMicros(222), usage().daily(bob.account(), Filter.ALL, from, to).get(0).spend());
        assertEquals(List.of("m/bob"), usage().models(bob.account()));
        assertEquals(Usd.ofMicros(222), usage().totalSpend(bob.account()));
        assertEquals(List.of("bob"), usage().activity(bob.account(), Filter.ALL, 0, 10).stream()
                .map(Activity::keyName).toList());
        // Even a filter naming alice's key, asked for bob's account, finds nothing.
        assertTrue(usage().activity(bob.account(), new Filter(alice.key().id(), null), 0, 10).isEmpty());
        assertTrue(usage().daily(bob.account(), new Filter(alice.key().id(), null), from, to).isEmpty());
        assertTrue(usage().activity(bob.account(), new Filter(null, "m/alice-only"), 0, 10).isEmpty());
        assertNull(usage().activity(bob.account(), Filter.ALL, 0, 10).stream()
                .filter(a -> a.model().equals("m/alice-only")).findAny().orElse(null));
    }
}
