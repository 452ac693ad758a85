package dev.tollgate.adapter.out.persistence.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.account.JdbcAccountRepository;
import dev.tollgate.adapter.out.persistence.apikey.JdbcApiKeyRepository;
import dev.tollgate.adapter.out.persistence.common.JdbcTransactionRunner;
import dev.tollgate.adapter.out.persistence.managementkey.JdbcManagementKeyRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcCredentialRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcSessionRepository;
import dev.tollgate.adapter.out.persistence.spend.JdbcKeySpendRepository;
import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.BillingLedger.HoldOutcome;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.application.testing.AbstractBillingLedgerContractTest;
import dev.tollgate.application.testing.AbstractBillingLedgerContractTest.Payer;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import dev.tollgate.domain.spend.SpendWindows;
import io.micronaut.context.ApplicationContext;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.TransactionOperations;
import java.math.BigDecimal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link JdbcBillingLedger} on a real PostgreSQL (the embedded server of {@link TestDatabase}): the port's contract,
 * the stored rows, and the money goals under concurrency — a key's cap is never exceeded (G1), a shared balance
 * never goes negative and money is conserved (G2, G4), and every request settles exactly once (G3).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcBillingLedgerTest {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");
    private static final Duration LEASE = Duration.ofMinutes(15);

    private ApplicationContext context;
    private JdbcBillingLedger ledger;
    private PersistenceStores stores;

    @BeforeAll
    void startContext() {
        context = ApplicationContext.builder().properties(TestDatabase.properties())
                .singletons(java.time.Clock.systemUTC()).start();
        ledger = context.getBean(JdbcBillingLedger.class);
        stores = new PersistenceStores(context.getBean(JdbcAccountRepository.class),
                context.getBean(JdbcApiKeyRepository.class), context.getBean(JdbcManagementKeyRepository.class),
                context.getBean(JdbcKeySpendRepository.class), context.getBean(JdbcTransactionRunner.class),
                context.getBean(JdbcCredentialRepository.class), context.getBean(JdbcSessionRepository.class));
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fixtures

    private Account newAccount(Usd balance) {
        Account account = stores.newAccount(NOW.minus(Duration.ofDays(30)));
        if (balance.isPositive()) {
            stores.accounts().credit(account.id(), balance, NOW.minus(Duration.ofDays(30)));
        }
        return account;
    }

    private Payer newKey(AccountId account, SpendLimit limit) {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        ApiKey key = ApiKey.issue(account, KeyHasher.sha256().hash(raw), raw.label(), new KeyName("billing-test"),
                limit == null ? null : limit.amount(), limit == null ? null : limit.reset(), null,
                NOW.minus(Duration.ofDays(30)));
        stores.apiKeys().insert(key);
        return new Payer(account, key.id(), key.hash());
    }

    private List<Payer> keysWithoutLimit(Account account, int count) {
        List<Payer> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(newKey(account.id(), null));
        }
        return keys;
    }

    private Payer newPayer(Usd balance, SpendLimit limit) {
        return newKey(newAccount(balance).id(), limit);
    }

    private static Usd dollars(String amount) {
        return Usd.ofDollars(new BigDecimal(amount));
    }

    private static String newRequestId() {
        return "req_" + UUID.randomUUID().toString().replace("-", "");
    }

    private static BillingLedger.HoldRequest hold(Payer payer, String requestId, Usd amount, Instant admittedAt) {
        return new BillingLedger.HoldRequest(requestId, payer.accountId(), payer.apiKeyId(), amount, admittedAt,
                admittedAt.plus(LEASE));
    }

    private static BillingLedger.Settlement settlement(Payer payer, String requestId, Usd cost, Instant at) {
        return new BillingLedger.Settlement(requestId, payer.keyHash(), "tollgate/simulator-priced", "simulator",
                new TokenUsage(12, 34), cost, "completed", at, 250L, 40L, true);
    }

    private static Connection connect() throws SQLException {
        Map<String, Object> db = TestDatabase.properties();
        return DriverManager.getConnection((String) db.get("datasources.default.url"),
                (String) db.get("datasources.default.username"), (String) db.get("datasources.default.password"));
    }

    private static long queryLong(String sql, Object... args) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next(), sql);
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Usd available(AccountId account) {
        return stores.accounts().findById(account).orElseThrow().balance();
    }

    /** The account's open holds. */
    private Usd reserved(AccountId account) {
        return Usd.ofMicros(queryLong("SELECT coalesce(sum(amount_micros), 0) FROM request_hold WHERE account_id = ?",
                account.value()));
    }

    private KeyUsage usage(ApiKeyId key, Instant at) {
        return stores.spend().usageAt(List.of(key), at).get(key);
    }

    private boolean holdOpen(String requestId) {
        return queryLong("SELECT count(*) FROM request_hold WHERE request_id = ?", requestId) == 1;
    }

    private List<AbstractBillingLedgerContractTest.Entry> ledgerRows(String requestId) {
        List<AbstractBillingLedgerContractTest.Entry> rows = new ArrayList<>();
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT status, held_micros, cost_micros, prompt_tokens, completion_tokens FROM request_ledger "
                        + "WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    rows.add(new AbstractBillingLedgerContractTest.Entry(rs.getString(1), rs.getLong(2),
                            rs.getLong(3), rs.getLong(4), rs.getLong(5)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** The same contract the in-memory fake passes. */
    @Nested
    class Contract extends AbstractBillingLedgerContractTest {
        @Override
        protected BillingLedger ledger() {
            return ledger;
        }

        @Override
        protected Payer newPayer(Usd balance, SpendLimit limit) {
            return JdbcBillingLedgerTest.this.newPayer(balance, limit);
        }

        @Override
        protected Usd available(AccountId account) {
            return JdbcBillingLedgerTest.this.available(account);
        }

        @Override
        protected Usd reserved(AccountId account) {
            return JdbcBillingLedgerTest.this.reserved(account);
        }

        @Override
        protected KeyUsage usage(ApiKeyId key, Instant at) {
            return JdbcBillingLedgerTest.this.usage(key, at);
        }

        @Override
        protected boolean holdOpen(String requestId) {
            return JdbcBillingLedgerTest.this.holdOpen(requestId);
        }

        @Override
        protected List<Entry> ledgerRows(String requestId) {
            return JdbcBillingLedgerTest.this.ledgerRows(requestId);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Rows as stored

    @Test
    void aHoldWhosePlacingFailedIsWithdrawnOnceTheDatabaseAnswers() throws InterruptedException {
        Payer payer = newPayer(dollars("5"), null);
        String requestId = newRequestId();
        String other = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, dollars("0.75"), NOW)));
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, other, dollars("0.25"), NOW)));

        // As when the database stalled after committing the hold and the request was refused with a 503.
        ledger.placingFailed(requestId);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (queryLong("SELECT count(*) FROM request_hold WHERE request_id = ?", requestId) > 0) {
            assertTrue(System.nanoTime() < deadline, "the hold was not withdrawn");
            Thread.sleep(100);
        }
        assertEquals(0, queryLong("SELECT count(*) FROM request_ledger WHERE request_id = ?", requestId),
                "a request that never ran leaves no ledger row");
        assertEquals(1, queryLong("SELECT count(*) FROM request_hold WHERE request_id = ?", other),
                "other holds stay");
    }

    @Test
    void aHoldIsOneRowCoveredByThisInstancesSliceOfTheBalance() {
        Payer payer = newPayer(dollars("5"), null);
        String requestId = newRequestId();
        Instant admitted = Instant.parse("2026-03-04T12:00:00.123Z");

        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, dollars("0.75"), admitted)));

        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT account_id, api_key_id, amount_micros, admitted_at, lease_until FROM request_hold "
                        + "WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next());
                assertEquals(payer.accountId().value(), rs.getObject(1, UUID.class));
                assertEquals(payer.apiKeyId().value(), rs.getObject(2, UUID.class));
                assertEquals(750_000, rs.getLong(3));
                assertEquals(admitted, rs.getObject(4, OffsetDateTime.class).toInstant());
                assertEquals(admitted.plus(LEASE), rs.getObject(5, OffsetDateTime.class).toInstant());
                assertFalse(rs.next());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        // The slice: the hold's 0.75 plus a margin (at most $1 and a quarter of the balance) left the balance.
        assertEquals(4_000_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                payer.accountId().value()));
        assertEquals(1_000_000, queryLong("SELECT reserved_micros FROM account WHERE id = ?",
                payer.accountId().value()));
        assertEquals(1_000_000, queryLong("SELECT amount_micros FROM balance_slice WHERE account_id = ?",
                payer.accountId().value()));
        assertEquals(250_000, ledger.unusedSlice(payer.accountId().value()));
        assertEquals(4_250_000, available(payer.accountId()).micros());

        // Idle slices go back to the balance; the hold stays covered.
        ledger.returnSlices();
        assertEquals(4_250_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                payer.accountId().value()));
        assertEquals(750_000, queryLong("SELECT reserved_micros FROM account WHERE id = ?",
                payer.accountId().value()));
        assertTrue(ledger.settle(settlement(payer, requestId, dollars("0.5"), admitted.plusSeconds(1))));
        ledger.returnSlices();
        assertEquals(4_500_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                payer.accountId().value()));
        assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", payer.accountId().value()));
        assertEquals(0, queryLong("SELECT amount_micros FROM balance_slice WHERE account_id = ?",
                payer.accountId().value()));

        // An empty idle slice is forgotten (no memory per account that stopped sending requests); the next hold of
        // the account takes a fresh slice from the balance.
        ledger.returnSlices();
        assertEquals(0, ledger.unusedSlice(payer.accountId().value()));
        int kept = ledger.slicesKept();
        String later = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, later, dollars("0.5"), admitted)));
        assertEquals(kept + 1, ledger.slicesKept());
        assertEquals(4_000_000, available(payer.accountId()).micros());
        assertTrue(ledger.settle(settlement(payer, later, Usd.ZERO, admitted.plusSeconds(1))));
        assertEquals(4_500_000, available(payer.accountId()).micros());
    }

    @Test
    void refusedHoldsWriteNothing() {
        Payer poor = newPayer(dollars("0.10"), null);
        String requestId = newRequestId();
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE, ledger.placeHold(hold(poor, requestId, dollars("0.11"), NOW)));
        Payer capped = newPayer(dollars("10"), SpendLimit.lifetime(dollars("0.10")));
        String capRequest = newRequestId();
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED, ledger.placeHold(hold(capped, capRequest, dollars("0.11"), NOW)));

        for (Payer payer : List.of(poor, capped)) {
            assertEquals(0, queryLong("SELECT count(*) FROM request_hold WHERE account_id = ?",
                    payer.accountId().value()));
            assertEquals(Usd.ZERO, reserved(payer.accountId()));
        }
        assertEquals(100_000, available(poor.accountId()).micros());
        assertEquals(10_000_000, available(capped.accountId()).micros());
    }

    @Test
    void aBatchWithALimitedKeyIsCheckedWholeAndBothPathsStoreTheSameMicrosecond() throws SQLException {
        // A batch without limited keys is written by one statement; one with a limited key takes the locking path.
        // Either way each placed hold is one row, refused ones none, and admission times are cut, never rounded.
        Account account = newAccount(dollars("10"));
        Payer free = newKey(account.id(), null);
        Payer capped = newKey(account.id(), SpendLimit.lifetime(dollars("0.10")));
        Instant admitted = NOW.plusNanos(1_999); // stored as NOW + 1 µs
        String alone = newRequestId();
        assertEquals(List.of(HoldOutcome.PLACED), ledger.writeHolds(List.of(hold(free, alone, dollars("0.01"),
                admitted))));
        String freeInMix = newRequestId();
        String tooMuch = newRequestId();
        String fits = newRequestId();
        assertEquals(List.of(HoldOutcome.PLACED, HoldOutcome.KEY_LIMIT_REACHED, HoldOutcome.PLACED),
                ledger.writeHolds(List.of(hold(free, freeInMix, dollars("0.01"), admitted),
                        hold(capped, tooMuch, dollars("0.11"), admitted), hold(capped, fits, dollars("0.10"), admitted))));
        for (String placed : List.of(alone, freeInMix, fits)) {
            assertEquals(1, queryLong("SELECT count(*) FROM request_hold WHERE request_id = ?", placed));
            assertEquals(NOW.toEpochMilli() * 1000 + 1, queryLong("SELECT (extract(epoch FROM admitted_at) "
                    + "* 1000000)::bigint FROM request_hold WHERE request_id = ?", placed));
        }
        assertEquals(0, queryLong("SELECT count(*) FROM request_hold WHERE request_id = ?", tooMuch));
        // These rows bypassed the balance slices (placeHold takes those first): remove them, nothing else saw them.
        queryLong("WITH gone AS (DELETE FROM request_hold WHERE account_id = ? RETURNING 1) SELECT count(*) FROM gone",
                account.id().value());
    }

    @Test
    void theKeyLimitCountsOpenHoldsAndSettledSpendInTheKeysWindowOnly() {
        // A weekly limit: spend and holds of the previous week do not count, those of this week do.
        Payer payer = newPayer(dollars("100"), new SpendLimit(dollars("1"), LimitReset.WEEKLY));
        Instant lastSunday = Instant.parse("2026-03-01T23:00:00Z");  // week of Monday 2026-02-23
        Instant wednesday = NOW;                                     // week of Monday 2026-03-02
        String lastWeek = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, lastWeek, dollars("0.9"), lastSunday)));
        assertTrue(ledger.settle(settlement(payer, lastWeek, dollars("0.9"), lastSunday.plusSeconds(5))));
        String openLastWeek = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, openLastWeek, dollars("0.1"), lastSunday)));

        String monday = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, monday, dollars("0.3"),
                Instant.parse("2026-03-02T00:00:00Z"))));
        assertTrue(ledger.settle(settlement(payer, monday, dollars("0.25"), wednesday)));
        String open = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, open, dollars("0.5"), wednesday)));

        // This week: 0.25 settled + 0.5 open = 0.75; 0.25 more fits exactly, one µUSD more does not.
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED,
                ledger.placeHold(hold(payer, newRequestId(), Usd.ofMicros(250_001), wednesday)));
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, newRequestId(), dollars("0.25"), wednesday)));
        assertTrue(ledger.settle(settlement(payer, openLastWeek, Usd.ZERO, wednesday)));
    }

    @Test
    void settlementWritesOneCompleteLedgerRowAndCountsInTheWindowOfAdmission() throws SQLException {
        Payer payer = newPayer(dollars("3"), new SpendLimit(dollars("1"), LimitReset.DAILY));
        Instant admitted = Instant.parse("2026-03-31T23:59:59.950Z"); // last instant of a day and a month
        Instant finished = Instant.parse("2026-04-01T00:00:02.500Z");
        String requestId = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, dollars("1"), admitted)));

        assertTrue(ledger.settle(settlement(payer, requestId, Usd.ofMicros(654_321), finished)));

        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT account_id, api_key_id, key_hash, model, provider, prompt_tokens, completion_tokens, "
                        + "held_micros, cost_micros, status, admitted_at, finished_at, latency_ms, ttft_ms, streamed "
                        + "FROM request_ledger WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next());
                assertEquals(payer.accountId().value(), rs.getObject(1, UUID.class));
                assertEquals(payer.apiKeyId().value(), rs.getObject(2, UUID.class));
                assertEquals(payer.keyHash().hex(), rs.getString(3));
                assertEquals("tollgate/simulator-priced", rs.getString(4));
                assertEquals("simulator", rs.getString(5));
                assertEquals(12, rs.getLong(6));
                assertEquals(34, rs.getLong(7));
                assertEquals(1_000_000, rs.getLong(8));
                assertEquals(654_321, rs.getLong(9));
                assertEquals("completed", rs.getString(10));
                assertEquals(admitted, rs.getObject(11, OffsetDateTime.class).toInstant());
                assertEquals(finished, rs.getObject(12, OffsetDateTime.class).toInstant());
                assertEquals(250, rs.getLong(13));
                assertEquals(40, rs.getLong(14));
                assertTrue(rs.getBoolean(15));
                assertFalse(rs.next());
            }
        }
        // The daily and monthly rows are those of March 31, where the request was admitted.
        assertEquals(654_321, queryLong("SELECT spent_micros FROM api_key_spend WHERE api_key_id = ? AND "
                + "period = 'daily' AND period_start = '2026-03-31T00:00:00Z'", payer.apiKeyId().value()));
        assertEquals(654_321, queryLong("SELECT spent_micros FROM api_key_spend WHERE api_key_id = ? AND "
                + "period = 'monthly' AND period_start = '2026-03-01T00:00:00Z'", payer.apiKeyId().value()));
        assertEquals(0, queryLong("SELECT count(*) FROM api_key_spend WHERE api_key_id = ? AND "
                + "period_start >= '2026-04-01T00:00:00Z'", payer.apiKeyId().value()));
        assertEquals(Usd.ZERO, usage(payer.apiKeyId(), finished).daily());
        assertEquals(Usd.ofMicros(654_321), usage(payer.apiKeyId(), admitted).daily());
        // April 1 starts with the whole daily limit.
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, newRequestId(), dollars("1"), finished)));
        assertEquals(3_000_000 - 654_321 - 1_000_000, available(payer.accountId()).micros());
    }

    @Test
    void theSettlementsSpendWindowsAreTheDomainsForAnyInstant() throws SQLException {
        // Any microsecond over eight years, Monday boundaries included: every charge lands in the rows of its
        // admission's windows as SpendWindows defines them, and nowhere else.
        Payer payer = newPayer(dollars("100"), null);
        java.util.Random random = new java.util.Random(9);
        Map<String, Long> expected = new java.util.TreeMap<>();
        long lifetime = 0;
        for (int i = 0; i < 300; i++) {
            // any microsecond from 2023 to 2031, and every 20th one a microsecond before or at a Monday 00:00 UTC
            Instant admitted = Instant.parse("2023-01-01T00:00:00Z").plus(
                    random.nextLong(8L * 365 * 86_400_000_000L), java.time.temporal.ChronoUnit.MICROS);
            if (i % 20 == 0) {
                Instant monday = SpendWindows.windowStart(LimitReset.WEEKLY, admitted);
                admitted = i % 40 == 0 ? monday : monday.minusNanos(1000);
            }
            long cost = 1 + random.nextInt(1000);
            String requestId = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, Usd.ofMicros(cost), admitted)));
            assertTrue(ledger.settle(settlement(payer, requestId, Usd.ofMicros(cost), admitted.plusSeconds(1))));
            lifetime += cost;
            for (LimitReset period : LimitReset.values()) {
                expected.merge(period.wireName() + " " + SpendWindows.windowStart(period, admitted), cost, Long::sum);
            }
        }
        expected.put("lifetime " + Instant.EPOCH, lifetime);
        Map<String, Long> stored = new java.util.TreeMap<>();
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT period, period_start, spent_micros FROM api_key_spend WHERE api_key_id = ?")) {
            statement.setObject(1, payer.apiKeyId().value());
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    stored.put(rs.getString(1) + " " + rs.getObject(2, OffsetDateTime.class).toInstant(),
                            rs.getLong(3));
                }
            }
        }
        assertEquals(expected, stored);
    }

    @Test
    void anExpiredHoldIsReleasedWithAnExpiredRowAndNoCharge() throws SQLException {
        Instant base = Instant.parse("2020-02-02T02:00:00Z"); // before every other hold in the shared database
        Payer payer = newPayer(dollars("2"), SpendLimit.lifetime(dollars("2")));
        String requestId = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, dollars("1.5"), base)));

        Instant sweep = base.plus(LEASE).plusSeconds(1);
        assertEquals(1, ledger.releaseExpired(sweep, 10));

        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT status, cost_micros, held_micros, provider, key_hash, finished_at, admitted_at "
                        + "FROM request_ledger WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("expired", rs.getString(1));
                assertEquals(0, rs.getLong(2));
                assertEquals(1_500_000, rs.getLong(3));
                assertNull(rs.getString(4));
                assertEquals(payer.keyHash().hex(), rs.getString(5));
                assertEquals(sweep, rs.getObject(6, OffsetDateTime.class).toInstant());
                assertEquals(base, rs.getObject(7, OffsetDateTime.class).toInstant());
            }
        }
        assertEquals(dollars("2"), available(payer.accountId()));
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
        assertEquals(0, queryLong("SELECT count(*) FROM api_key_spend WHERE api_key_id = ?",
                payer.apiKeyId().value()));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Concurrency

    /** Runs {@code tasks} on {@code threads} threads released at once; returns what they threw. */
    private static List<Throwable> runConcurrently(int threads, List<Runnable> tasks) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (Runnable task : tasks) {
            futures.add(pool.submit(() -> {
                go.await();
                task.run();
                return null;
            }));
        }
        go.countDown();
        pool.shutdown();
        assertTrue(pool.awaitTermination(2, TimeUnit.MINUTES), "the concurrent run did not finish");
        List<Throwable> failures = new ArrayList<>();
        for (Future<?> future : futures) {
            try {
                future.get();
            } catch (java.util.concurrent.ExecutionException e) {
                failures.add(e.getCause());
            }
        }
        return failures;
    }

    /** No ledger call may fail under concurrency (a failed settle leaves its hold to the sweeper). */
    private static void assertNoneFailed(List<Throwable> failures, int calls) {
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " of " + calls + " concurrent tasks failed; first: "
                    + failures.get(0), failures.get(0));
        }
    }

    /** Money is conserved: what is available, held and charged adds up to what was credited. */
    private void assertConserved(AccountId account, long creditedMicros) {
        assertEquals(creditedMicros, queryLong("SELECT a.balance_micros + a.reserved_micros + (SELECT "
                + "coalesce(sum(cost_micros), 0) FROM request_ledger l WHERE l.account_id = a.id) FROM account a "
                + "WHERE a.id = ?", account.value()));
    }

    @Test
    void g1TheKeyCapHoldsUnderConcurrentHoldsAndSettlements() throws InterruptedException {
        Usd cost = dollars("0.03");
        for (int run = 0; run < 3; run++) {
            Payer payer = newPayer(dollars("100"), SpendLimit.lifetime(dollars("1.00")));
            AtomicInteger placed = new AtomicInteger();
            AtomicInteger settled = new AtomicInteger();
            List<Runnable> workers = new ArrayList<>();
            for (int thread = 0; thread < 50; thread++) {
                workers.add(() -> {
                    for (int i = 0; i < 6; i++) {
                        String requestId = newRequestId();
                        if (ledger.placeHold(hold(payer, requestId, cost, NOW)) == HoldOutcome.PLACED) {
                            placed.incrementAndGet();
                            if (ledger.settle(settlement(payer, requestId, cost, NOW.plusSeconds(2)))) {
                                settled.incrementAndGet();
                            }
                        }
                    }
                });
            }

            List<Throwable> failures = runConcurrently(50, workers);

            long spent = queryLong("SELECT coalesce(sum(cost_micros), 0) FROM request_ledger WHERE api_key_id = ?",
                    payer.apiKeyId().value());
            // What must hold whatever else goes wrong: the cap and the conservation of money.
            assertTrue(placed.get() <= 33, "run " + run + ": " + placed.get() + " holds fit under $1.00 at $0.03");
            assertTrue(spent <= 1_000_000, "settled " + spent + " µUSD over a $1.00 cap");
            assertConserved(payer.accountId(), 100_000_000);
            // And no call may fail: every request is admitted if it fits and settled at once.
            assertNoneFailed(failures, workers.size());
            assertEquals(33, placed.get(), "run " + run + ": every hold that fits is admitted");
            assertEquals(placed.get(), settled.get());
            assertEquals(33 * 30_000, spent);
            assertEquals(spent, usage(payer.apiKeyId(), NOW).total().micros(), "key counter = ledger");
            assertEquals(100_000_000 - spent, available(payer.accountId()).micros(), "balance = credit - ledger");
            assertEquals(Usd.ZERO, reserved(payer.accountId()));
            assertEquals(0, queryLong("SELECT count(*) FROM request_hold WHERE api_key_id = ?",
                    payer.apiKeyId().value()));
        }
    }

    @Test
    void g2ASharedBalanceIsNeverOverdrawnByConcurrentHoldsOnManyKeys() throws Exception {
        Account account = newAccount(dollars("5"));
        List<Payer> keys = keysWithoutLimit(account, 10);
        Usd cost = dollars("0.05");
        AtomicInteger placed = new AtomicInteger();
        List<String> placedIds = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong minBalance = new AtomicLong(Long.MAX_VALUE);
        AtomicLong samples = new AtomicLong();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        Thread sampler = new Thread(() -> {
            try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                    "SELECT a.balance_micros, a.reserved_micros, (SELECT coalesce(sum(cost_micros), 0) "
                            + "FROM request_ledger l WHERE l.account_id = a.id) FROM account a WHERE a.id = ?")) {
                statement.setObject(1, account.id().value());
                while (sampling.get()) {
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        long balance = rs.getLong(1);
                        long total = balance + rs.getLong(2) + rs.getLong(3);
                        minBalance.accumulateAndGet(balance, Math::min);
                        samples.incrementAndGet();
                        if (total != 5_000_000) {
                            violations.add("balance + reserved + charged = " + total);
                        }
                    }
                }
            } catch (SQLException e) {
                violations.add("sampler failed: " + e);
            }
        });
        sampler.start();

        List<Runnable> requests = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Payer payer = keys.get(i % keys.size());
            requests.add(() -> {
                String requestId = newRequestId();
                if (ledger.placeHold(hold(payer, requestId, cost, NOW)) == HoldOutcome.PLACED) {
                    placed.incrementAndGet();
                    placedIds.add(requestId);
                    assertTrue(ledger.settle(settlement(payer, requestId, cost, NOW.plusSeconds(1))));
                }
            });
        }
        List<Throwable> failures;
        try {
            failures = runConcurrently(50, requests);
        } finally {
            sampling.set(false);
            sampler.join();
        }

        assertTrue(placed.get() <= 100, placed.get() + " holds of $0.05 admitted on $5.00");
        assertTrue(violations.isEmpty(), violations.toString());
        assertTrue(samples.get() > 0);
        assertTrue(minBalance.get() >= 0, "balance went negative: " + minBalance.get());
        assertConserved(account.id(), 5_000_000);
        assertNoneFailed(failures, 500);
        assertEquals(100, placed.get(), "every hold the balance covers is admitted");
        assertEquals(Usd.ZERO, available(account.id()));
        assertEquals(Usd.ZERO, reserved(account.id()));
        assertEquals(5_000_000, queryLong("SELECT sum(cost_micros) FROM request_ledger WHERE account_id = ?",
                account.id().value()));
        assertEquals(100, queryLong("SELECT count(*) FROM request_ledger WHERE account_id = ?",
                account.id().value()));
    }

    @Test
    void g3ConcurrentSettlementsOfOneRequestSettleItExactlyOnce() throws InterruptedException {
        Payer payer = newPayer(dollars("10"), null);
        List<String> requestIds = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String requestId = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, dollars("0.1"), NOW)));
            requestIds.add(requestId);
        }
        AtomicInteger won = new AtomicInteger();
        List<Runnable> settlers = new ArrayList<>();
        for (String requestId : requestIds) {
            for (int copy = 0; copy < 4; copy++) { // e.g. the completion, a client abort, a timer and a retry
                Usd cost = Usd.ofMicros(10_000 * (copy + 1));
                settlers.add(() -> {
                    if (ledger.settle(settlement(payer, requestId, cost, NOW))) {
                        won.incrementAndGet();
                    }
                });
            }
        }
        Collections.shuffle(settlers);

        assertNoneFailed(runConcurrently(16, settlers), settlers.size());

        assertEquals(40, won.get(), "exactly one settlement per request wins");
        assertEquals(40, queryLong("SELECT count(*) FROM request_ledger WHERE account_id = ?",
                payer.accountId().value()));
        long charged = queryLong("SELECT sum(cost_micros) FROM request_ledger WHERE account_id = ?",
                payer.accountId().value());
        assertEquals(10_000_000 - charged, available(payer.accountId()).micros(), "refunded exactly once each");
        assertEquals(charged, usage(payer.apiKeyId(), NOW).total().micros());
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
    }

    @Test
    void aSettlementOfAKeyWithALimitWaitsForAHoldInProgressOnTheSameKey() throws Exception {
        // The hold reads settled spend, then open holds. A settlement committing between the two reads would hide its
        // amount from both; so a settlement of a key with a limit takes the key's row lock that the hold holds until
        // it commits. Here the hold's transaction is kept open while the settlement tries to commit.
        Payer payer = newPayer(dollars("10"), SpendLimit.lifetime(dollars("1")));
        String first = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, first, dollars("0.6"), NOW)));

        JdbcTransactionRunner transactions = context.getBean(JdbcTransactionRunner.class);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<HoldOutcome> second = pool.submit(() -> transactions.inTransaction(() -> {
                HoldOutcome outcome = ledger.placeHold(hold(payer, newRequestId(), dollars("0.6"), NOW));
                held.countDown();
                try {
                    assertTrue(proceed.await(30, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return outcome;
            }));
            assertTrue(held.await(30, TimeUnit.SECONDS), "the hold did not run");
            Future<Boolean> settleFirst = pool.submit(() -> ledger.settle(settlement(payer, first, dollars("0.6"),
                    NOW)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!settleFirst.isDone() && System.nanoTime() < deadline
                    && queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            + "AND datname = current_database()") == 0) {
                Thread.sleep(5);
            }
            assertFalse(settleFirst.isDone(), "the settlement committed while a hold on its key was in progress");
            proceed.countDown();

            assertEquals(HoldOutcome.KEY_LIMIT_REACHED, second.get(30, TimeUnit.SECONDS),
                    "0.6 held + 0.6 exceeds the $1 cap");
            assertTrue(settleFirst.get(30, TimeUnit.SECONDS));
        } finally {
            proceed.countDown();
            pool.shutdownNow();
        }
        assertEquals(dollars("0.6"), usage(payer.apiKeyId(), NOW).total());
        assertEquals(0, queryLong("SELECT count(*) FROM request_hold WHERE api_key_id = ?",
                payer.apiKeyId().value()));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Several instances

    /** Another gateway instance on the same database: its own id, slices, writers and lease. */
    @SuppressWarnings("unchecked")
    private JdbcBillingLedger secondInstance(Duration lease) {
        return new JdbcBillingLedger(context.getBean(TransactionOperations.class),
                context.getBean(javax.sql.DataSource.class), context.getBean(io.micronaut.jdbc.DataSourceResolver.class),
                java.time.Clock.systemUTC(), BigDecimal.ONE, Duration.ofSeconds(1), lease, Duration.ofSeconds(1),
                Duration.ofMillis(5), Duration.ofMillis(500));
    }

    @Test
    void g2TwoInstancesNeverOverdrawASharedBalanceAndStrandAtMostOneHoldEach() throws Exception {
        JdbcBillingLedger other = secondInstance(Duration.ofSeconds(15));
        try {
            Account account = newAccount(dollars("5"));
            List<Payer> keys = keysWithoutLimit(account, 10);
            Usd cost = dollars("0.05");
            AtomicInteger placed = new AtomicInteger();
            List<Runnable> requests = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                Payer payer = keys.get(i % keys.size());
                BillingLedger instance = i % 2 == 0 ? ledger : other;
                requests.add(() -> {
                    String requestId = newRequestId();
                    if (instance.placeHold(hold(payer, requestId, cost, NOW)) == HoldOutcome.PLACED) {
                        placed.incrementAndGet();
                        assertTrue(instance.settle(settlement(payer, requestId, cost, NOW.plusSeconds(1))));
                    }
                });
            }
            assertNoneFailed(runConcurrently(50, requests), 500);

            long charged = queryLong("SELECT coalesce(sum(cost_micros), 0) FROM request_ledger WHERE account_id = ?",
                    account.id().value());
            assertTrue(placed.get() <= 100, placed.get() + " holds of $0.05 admitted on $5.00");
            // An instance refuses a request only when the balance and its own slice cannot cover it; the other
            // instance's unused slice is then less than one request: at most one request per other instance lost.
            assertTrue(placed.get() >= 99, "only " + placed.get() + " of 100 affordable requests admitted");
            assertEquals(placed.get() * 50_000L, charged);
            assertConserved(account.id(), 5_000_000);
            assertTrue(queryLong("SELECT balance_micros FROM account WHERE id = ?", account.id().value()) >= 0);

            ledger.returnSlices();
            other.returnSlices();
            assertEquals(5_000_000 - charged, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                    account.id().value()), "idle slices are back in the balance");
            assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", account.id().value()));
        } finally {
            other.close();
        }
    }

    /**
     * A cleanly stopped instance ends its lease: the others stop counting it at once (the traffic limits divide by
     * the instances alive while Redis is away), not after its lease (an audit saw 15 s).
     */
    @Test
    void anInstanceStoppedCleanlyIsNoLongerCountedAlive() {
        JdbcBillingLedger other = secondInstance(Duration.ofSeconds(15));
        Account account = newAccount(dollars("1"));
        Payer payer = keysWithoutLimit(account, 1).get(0);
        String requestId = newRequestId();
        assertEquals(HoldOutcome.PLACED, other.placeHold(hold(payer, requestId, dollars("0.01"), NOW)));
        assertTrue(other.settle(settlement(payer, requestId, dollars("0.01"), NOW.plusSeconds(1))));
        String alive = "SELECT count(*) FROM gateway_instance WHERE alive_until >= now()";
        long before = queryLong(alive);
        other.close();
        assertEquals(before - 1, queryLong(alive), "its lease ended with it");
    }

    /** One request on each instance in turn, each held at {@code hold} and settled at {@code charge}. */
    /** What each request of {@link #tenCentsAfterRequestsOn} holds and is charged. */
    private static final Usd SMALL_HOLD = dollars("0.033");
    private static final Usd SMALL_CHARGE = dollars("0.020");

    private record Funded(Account account, Payer payer) {
    }

    /**
     * An account with $0.10 and a key without a limit, after one request ($0.033 held, $0.020 charged) placed and
     * settled on each of {@code instances} in turn.
     */
    private Funded tenCentsAfterRequestsOn(JdbcBillingLedger... instances) {
        Account account = newAccount(dollars("0.10"));
        Payer payer = newKey(account.id(), null);
        for (JdbcBillingLedger instance : instances) {
            String requestId = newRequestId();
            assertEquals(HoldOutcome.PLACED, instance.placeHold(hold(payer, requestId, SMALL_HOLD, NOW)));
            assertTrue(instance.settle(settlement(payer, requestId, SMALL_CHARGE, NOW.plusSeconds(1))));
        }
        return new Funded(account, payer);
    }

    /**
     * A small balance spread over two instances' slices: each remainder alone is less than a hold, and so is the
     * balance, but together they cover it. The instance that is short asks the other for its unused slice and
     * places the hold within about a second (it used to refuse it for as long as requests kept both slices busy).
     */
    @Test
    void aHoldTheBalanceAndAnotherInstancesIdleSliceCoverIsPlaced() throws Exception {
        JdbcBillingLedger other = secondInstance(Duration.ofSeconds(15));
        try {
            Funded funded = tenCentsAfterRequestsOn(ledger, other, ledger);
            Account account = funded.account();
            Payer payer = funded.payer();
            // Each slice keeps 13,000 µUSD, the balance 14,000: 40,000 spendable, 33,000 needed.
            assertEquals(13_000, ledger.unusedSlice(account.id().value()));
            assertEquals(13_000, other.unusedSlice(account.id().value()));
            assertEquals(14_000, queryLong("SELECT balance_micros FROM account WHERE id = ?", account.id().value()));

            long started = System.nanoTime();
            String requestId = newRequestId();
            assertEquals(HoldOutcome.PLACED, other.placeHold(hold(payer, requestId, SMALL_HOLD, NOW)));
            long waitedMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(waitedMillis < 1_000, "placed after " + waitedMillis + " ms");
            assertEquals(0, ledger.unusedSlice(account.id().value()), "the recalled slice was given back");
            assertEquals(0, queryLong("SELECT count(*) FROM balance_slice WHERE account_id = ? AND recalled",
                    account.id().value()), "the recall is cleared");
            assertTrue(other.settle(settlement(payer, requestId, SMALL_CHARGE, NOW.plusSeconds(1))));
            assertConserved(account.id(), 100_000);

            // What is left (20,000 µUSD) cannot cover another hold anywhere: refused at once, nothing recalled.
            started = System.nanoTime();
            assertEquals(HoldOutcome.INSUFFICIENT_BALANCE,
                    ledger.placeHold(hold(payer, newRequestId(), SMALL_HOLD, NOW)));
            assertTrue((System.nanoTime() - started) / 1_000_000 < 500, "a real shortfall does not wait");
            assertConserved(account.id(), 100_000);
        } finally {
            other.close();
        }
    }

    /** Settles the request at {@code cost} on another thread after {@code millis}, as its answer was written. */
    private Thread settleLater(Payer payer, String requestId, Usd cost, long millis) {
        return settleLater(ledger, payer, requestId, cost, millis);
    }

    private static Thread settleLater(BillingLedger instance, Payer payer, String requestId, Usd cost, long millis) {
        Thread settling = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            instance.settle(settlement(payer, requestId, cost, NOW.plusSeconds(1)));
        });
        settling.start();
        return settling;
    }

    /**
     * A client that sends its next request the moment the last answer arrives: the answer is written before its
     * settlement lands, so the refund is not back yet. A hold the refund will cover waits for it instead of being
     * refused with money left; without a settlement on its way, a shortfall is refused at once.
     */
    @Test
    void aHoldWaitsForTheRefundOfARequestThatJustEnded() throws Exception {
        Account account = newAccount(dollars("0.10"));
        Payer payer = newKey(account.id(), null);
        String first = newRequestId();
        String second = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, first, dollars("0.05"), NOW)));
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, second, dollars("0.05"), NOW)));

        long started = System.nanoTime();
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE, ledger.placeHold(hold(payer, newRequestId(), dollars("0.04"),
                NOW)), "nothing on its way: refused");
        assertTrue((System.nanoTime() - started) / 1_000_000 < 100, "at once");

        ledger.ending(first, account.id()); // its answer is being written; the settlement follows
        Thread settling = settleLater(payer, first, dollars("0.01"), 50);
        String third = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, third, dollars("0.04"), NOW)),
                "covered by the refund of the request that ended");
        settling.join();
        assertTrue(ledger.settle(settlement(payer, second, dollars("0.05"), NOW.plusSeconds(1))));
        assertTrue(ledger.settle(settlement(payer, third, dollars("0.04"), NOW.plusSeconds(1))));
        assertConserved(account.id(), 100_000);
        assertEquals(0, queryLong("SELECT balance_micros + reserved_micros FROM account WHERE id = ?",
                account.id().value()), "all of it spent");
    }

    /**
     * A refund that does not come in time: the hold waits for it at most the refusal wait (500 ms here), then is
     * refused — well inside the admission deadline (900 ms), so the client gets the 429 of its money, not a 503.
     */
    @Test
    void aHoldWaitsForARefundAtMostTheRefusalWait() throws Exception {
        Account account = newAccount(dollars("0.10"));
        Payer payer = newKey(account.id(), null);
        String first = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, first, dollars("0.10"), NOW)));
        ledger.ending(first, account.id()); // a settlement said to be on its way, which does not come

        long started = System.nanoTime();
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE, ledger.placeHold(hold(payer, newRequestId(), dollars("0.04"),
                NOW)));
        long waitedMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(waitedMillis >= 200 && waitedMillis < 800, "waited " + waitedMillis + " ms, within the 500 ms "
                + "refusal wait (and a last look), not the second the waits add up to");

        assertTrue(ledger.settle(settlement(payer, first, dollars("0.10"), NOW.plusSeconds(1))));
        assertConserved(account.id(), 100_000);
    }

    /**
     * The database's transactions, except that a write can be told to lose its acknowledgement: it commits, and the
     * caller is told it failed — as when the connection is reset while the commit's answer is on its way.
     */
    private static final class LostAcknowledgement implements TransactionOperations<java.sql.Connection> {
        private final TransactionOperations<java.sql.Connection> database;
        volatile boolean loseNext;

        LostAcknowledgement(TransactionOperations<java.sql.Connection> database) {
            this.database = database;
        }

        @Override
        public java.sql.Connection getConnection() {
            return database.getConnection();
        }

        @Override
        public boolean hasConnection() {
            return database.hasConnection();
        }

        @Override
        public java.util.Optional<? extends io.micronaut.transaction.TransactionStatus<?>> findTransactionStatus() {
            return database.findTransactionStatus();
        }

        @Override
        public <R> R execute(io.micronaut.transaction.TransactionDefinition definition,
                io.micronaut.transaction.TransactionCallback<java.sql.Connection, R> callback) {
            R result = database.execute(definition, callback);
            if (loseNext) {
                loseNext = false;
                throw new IllegalStateException("An I/O error occurred while sending to the backend (committed)");
            }
            return result;
        }
    }

    @SuppressWarnings("unchecked")
    private LostAcknowledgement lostAcknowledgements() {
        return new LostAcknowledgement(context.getBean(TransactionOperations.class));
    }

    /** The slices of an instance of their own (no lease, no holds) writing through {@code database}. */
    private static BalanceSlices slicesOver(TransactionOperations<java.sql.Connection> database, long targetMicros) {
        return new BalanceSlices(database, "lost-ack-" + UUID.randomUUID(), targetMicros,
                java.util.concurrent.ConcurrentHashMap.newKeySet(), a -> false);
    }

    /**
     * G9's reset_peer during the return of an idle slice: the return committed, but the instance was told it
     * failed. It must not keep that money in memory too — holds would take it, and their settlements would drive
     * the account's reserved money below zero and fail for good (a fault audit: served requests never billed).
     * Memory stays at or below the slice row, and a reconciliation puts the account right.
     */
    @Test
    void aSliceReturnWhoseCommitWasNotAcknowledgedLeavesNoMoneyInMemoryThatTheRowLacks() {
        Account account = newAccount(dollars("1"));
        LostAcknowledgement database = lostAcknowledgements();
        BalanceSlices slices = slicesOver(database, 250_000);
        assertTrue(slices.take(account.id(), 100_000, System.nanoTime()));
        slices.placingEnded(account.id(), 100_000); // placed; 150,000 left unused in the slice
        assertEquals(150_000, slices.available(account.id().value()));

        database.loseNext = true;
        assertThrows(IllegalStateException.class, () -> slices.returnIdle(0));

        assertEquals(100_000, queryLong("SELECT amount_micros FROM balance_slice WHERE account_id = ?",
                account.id().value()), "the return committed");
        assertEquals(0, slices.available(account.id().value()), "and memory does not keep it as well");
        assertTrue(slices.inDoubt());

        slices.reconcile();
        assertFalse(slices.inDoubt());
        assertEquals(0, slices.available(account.id().value()));
        assertConserved(account.id(), 1_000_000);
    }

    /** A top-up that returned the slice's remainder (the balance was short) and lost its acknowledgement: the same. */
    @Test
    void aTopUpWhoseCommitWasNotAcknowledgedLeavesNoMoneyInMemoryThatTheRowLacks() {
        Account account = newAccount(dollars("0.2"));
        LostAcknowledgement database = lostAcknowledgements();
        BalanceSlices slices = slicesOver(database, 1_000_000);
        assertTrue(slices.take(account.id(), 40_000, System.nanoTime())); // the slice takes 50,000 of the 200,000
        slices.placingEnded(account.id(), 40_000);
        long inMemory = slices.available(account.id().value());
        assertTrue(inMemory > 0);

        database.loseNext = true; // more than the balance covers: the top-up gives the remainder back instead
        assertThrows(IllegalStateException.class, () -> slices.take(account.id(), 10_000_000, System.nanoTime()));

        assertEquals(40_000, queryLong("SELECT amount_micros FROM balance_slice WHERE account_id = ?",
                account.id().value()), "the remainder went back: the row keeps what the placed hold took");
        assertEquals(0, slices.available(account.id().value()), "and memory does not keep the remainder either");
        assertTrue(slices.inDoubt());
        slices.reconcile();
        assertFalse(slices.inDoubt());
        assertConserved(account.id(), 200_000);
    }

    private record CappedKey(Account account, Payer payer, String first) {
    }

    /** An account with $1 and a key limited to $0.10 for life, whose first request holds all of it. */
    private CappedKey keyHoldingItsWholeLimit() {
        Account account = newAccount(dollars("1"));
        Payer payer = newKey(account.id(), SpendLimit.lifetime(dollars("0.10")));
        String first = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, first, dollars("0.10"), NOW)));
        return new CappedKey(account, payer, first);
    }

    /** The same for a key's limit: the request that just ended counts at its whole hold until it is settled. */
    @Test
    void aHoldOfALimitedKeyWaitsForTheSettlementOfARequestThatJustEnded() throws Exception {
        CappedKey capped = keyHoldingItsWholeLimit();
        Account account = capped.account();
        Payer payer = capped.payer();
        String first = capped.first();
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED, ledger.placeHold(hold(payer, newRequestId(), dollars("0.05"),
                NOW)), "nothing on its way: refused");

        ledger.ending(first, account.id());
        Thread settling = settleLater(payer, first, dollars("0.02"), 30);
        String second = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, second, dollars("0.05"), NOW)),
                "within the limit once the first is settled at $0.02");
        settling.join();
        assertTrue(ledger.settle(settlement(payer, second, dollars("0.05"), NOW.plusSeconds(1))));
        assertConserved(account.id(), 1_000_000);
    }

    /**
     * The settlement can also land just after the limit refused the next hold and before the refusal is looked at
     * again: nothing is coming any more then, yet the limit has room (an audit over HTTP saw 3 of 150 back-to-back
     * requests refused so on a loaded machine). The hook puts the settlement exactly there.
     */
    @Test
    void aHoldOfALimitedKeyRefusedJustBeforeTheSettlementLandedTriesAgain() throws Exception {
        CappedKey capped = keyHoldingItsWholeLimit();
        Account account = capped.account();
        Payer payer = capped.payer();
        String first = capped.first();
        ledger.ending(first, account.id());
        ledger.afterKeyLimitRefusal = () -> {
            ledger.afterKeyLimitRefusal = null;
            assertTrue(ledger.settle(settlement(payer, first, dollars("0.02"), NOW.plusSeconds(1))));
        };
        try {
            String second = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, second, dollars("0.05"), NOW)),
                    "within the limit once the first is settled at $0.02");
            assertTrue(ledger.settle(settlement(payer, second, dollars("0.05"), NOW.plusSeconds(1))));
        } finally {
            ledger.afterKeyLimitRefusal = null;
        }
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED, ledger.placeHold(hold(payer, newRequestId(), dollars("0.05"),
                NOW)), "$0.03 left of the limit: refused");
        assertConserved(account.id(), 1_000_000);
    }

    /**
     * The refund can land while the next hold's top-up waits for the account's row (the settlement holds it): the
     * hold then no longer sees a settlement coming, and must still use the refund (an audit saw 2 of 50 such
     * requests refused with $0.040 left over HTTP). Repeated, since the race is a matter of timing; in process it
     * did not show in 40 trials without the fix either, so this pins the outcome, not the interleaving.
     */
    @Test
    void aRefundThatLandsDuringTheTopUpCoversTheHold() throws Exception {
        for (int trial = 0; trial < 20; trial++) {
            Funded funded = tenCentsAfterRequestsOn(ledger, ledger);
            Account account = funded.account();
            Payer payer = funded.payer();
            String third = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, third, SMALL_HOLD, NOW)));
            ledger.ending(third, account.id());
            Thread settling = settleLater(payer, third, SMALL_CHARGE, 0);
            String fourth = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, fourth, SMALL_HOLD, NOW)),
                    "trial " + trial + ": $0.040 left once the third is settled");
            settling.join();
            assertTrue(ledger.settle(settlement(payer, fourth, SMALL_CHARGE, NOW.plusSeconds(1))));
            assertConserved(account.id(), 100_000);
        }
    }

    /**
     * The same across instances: the request that just ended on one instance holds money in its slice until it is
     * settled, and the next request arrives on the other. The short instance recalls the slice, held part
     * included, and asks again until the refund is back (it was refused in 10 of 14 trials of an audit).
     */
    @Test
    void aHoldWaitsForTheRefundOfARequestThatJustEndedOnAnotherInstance() throws Exception {
        JdbcBillingLedger other = secondInstance(Duration.ofSeconds(15));
        try {
            Funded funded = tenCentsAfterRequestsOn(ledger, other);
            Account account = funded.account();
            Payer payer = funded.payer();
            String ending = newRequestId();
            assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, ending, SMALL_HOLD, NOW)));
            // its answer has just been written
            Thread settling = settleLater(ledger, payer, ending, SMALL_CHARGE, 50);

            String next = newRequestId();
            long started = System.nanoTime();
            assertEquals(HoldOutcome.PLACED, other.placeHold(hold(payer, next, SMALL_HOLD, NOW)),
                    "$0.040 left once the request on the other instance is settled");
            assertTrue((System.nanoTime() - started) / 1_000_000 < 1_000, "within the shortfall wait");
            settling.join();
            assertTrue(other.settle(settlement(payer, next, SMALL_CHARGE, NOW.plusSeconds(1))));
            assertConserved(account.id(), 100_000);
        } finally {
            other.close();
        }
    }

    /**
     * Holds refused by a key's limit do not count as use of the slice they were taken from: a client retrying a
     * capped key in a loop must not keep the account's money in this instance's slice, away from its other keys
     * on other instances.
     */
    @Test
    void aSliceWhoseHoldsAreRefusedIsIdle() throws Exception {
        Account account = newAccount(dollars("1"));
        Payer capped = newKey(account.id(), SpendLimit.lifetime(dollars("0.01")));
        Payer open = newKey(account.id(), null);
        String requestId = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(open, requestId, dollars("0.05"), NOW)));
        assertTrue(ledger.settle(settlement(open, requestId, dollars("0.01"), NOW.plusSeconds(1))));
        assertTrue(ledger.unusedSlice(account.id().value()) > 0);
        Thread.sleep(300);
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED,
                ledger.placeHold(hold(capped, newRequestId(), dollars("0.05"), NOW)));
        ledger.returnSlicesIdleFor(Duration.ofMillis(200));
        assertEquals(0, ledger.unusedSlice(account.id().value()),
                "last placed hold 300 ms ago: idle, whatever was refused since");
        assertConserved(account.id(), 1_000_000);
    }

    @Test
    void g3HoldsAndSlicesOfAnInstanceThatStoppedAreReleasedByAnother() {
        JdbcBillingLedger dying = secondInstance(Duration.ofSeconds(2));
        Payer payer = newPayer(dollars("8"), SpendLimit.lifetime(dollars("5")));
        Instant now = Instant.now(); // real time: the instance lease runs on the real clock
        String settled = newRequestId();
        assertEquals(HoldOutcome.PLACED, dying.placeHold(hold(payer, settled, dollars("0.5"), now)));
        assertTrue(dying.settle(settlement(payer, settled, dollars("0.2"), now.plusSeconds(1))));
        String inFlight = newRequestId();
        assertEquals(HoldOutcome.PLACED, dying.placeHold(hold(payer, inFlight, dollars("0.7"), now)));
        // The instance dies (its writers stop, nothing is given back) and its lease is not renewed any more.
        dying.abandon();

        Instant beforeLeaseEnds = Instant.now();
        assertEquals(0, ledger.releaseExpired(beforeLeaseEnds, 100), "a live lease protects the holds");
        assertTrue(holdOpen(inFlight));

        Instant afterLeaseEnds = Instant.now().plusSeconds(5); // and the sweeper renewed for over 4 s by then
        assertEquals(1, ledger.releaseExpired(afterLeaseEnds, 100));
        assertFalse(holdOpen(inFlight));
        assertEquals("expired", ledgerRows(inFlight).get(0).status());
        assertEquals(0, ledgerRows(inFlight).get(0).costMicros());
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
        assertEquals(0, queryLong("SELECT count(*) FROM balance_slice WHERE account_id = ?",
                payer.accountId().value()), "the dead instance's slice is gone");
        assertEquals(7_800_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                payer.accountId().value()), "all of it back in the balance, less the one charge");
        assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", payer.accountId().value()));
        assertConserved(payer.accountId(), 8_000_000);
        assertEquals(200_000, usage(payer.apiKeyId(), Instant.now()).total().micros());
    }

    /**
     * An instance frozen past its lease (SIGSTOP, a long pause) while another released its holds and gave its slice
     * back: when it wakes it must not spend the slice it remembers — the same dollar would be spent twice, and its
     * settlements would drive the account's reserved money below zero.
     */
    @Test
    void anInstanceWhoseLeaseRanOutWhileItLivedDoesNotSpendTheSliceItRemembers() throws Exception {
        JdbcBillingLedger frozen = secondInstance(Duration.ofSeconds(2));
        try {
            Payer payer = newPayer(dollars("1"), null);
            Instant now = Instant.now();
            String first = newRequestId();
            assertEquals(HoldOutcome.PLACED, frozen.placeHold(hold(payer, first, dollars("0.1"), now)));
            frozen.pauseUpkeep(); // frozen: no renewals, nothing given back
            ledger.releaseExpired(Instant.now(), 100); // the sweeper's own lease begins
            Thread.sleep(4_500);
            assertEquals(1, ledger.releaseExpired(Instant.now(), 100), "taken for stopped, its hold released");
            assertEquals(0, queryLong("SELECT count(*) FROM balance_slice WHERE account_id = ?",
                    payer.accountId().value()), "and its slice given back");

            // It wakes up: first its upkeep gives its idle slices back — only what the database says it still has.
            frozen.returnSlices();
            assertConserved(payer.accountId(), 1_000_000);
            // And it goes on: ten more requests of $0.10 on a $1 balance.
            int placed = 0;
            for (int i = 0; i < 12; i++) {
                String requestId = newRequestId();
                if (frozen.placeHold(hold(payer, requestId, dollars("0.1"), Instant.now())) == HoldOutcome.PLACED) {
                    placed++;
                    assertTrue(frozen.settle(settlement(payer, requestId, dollars("0.1"), Instant.now())),
                            "settled, not refused by the database");
                }
            }
            assertEquals(10, placed, "the balance, not a remembered slice, bounds what it admits");
            assertConserved(payer.accountId(), 1_000_000);
            assertEquals(0, queryLong("SELECT balance_micros FROM account WHERE id = ?", payer.accountId().value()));
        } finally {
            frozen.close();
        }
    }

    /**
     * A hold committed as the database failed (its request refused, its amount back in the slice) and then an
     * outage longer than the lease: the reconciliation after it must not keep that hold's amount in the slice row,
     * or once the hold is withdrawn the money stays reserved for good (a fault audit found $0.012 of an account's
     * money unusable after a 20 s outage, given back only when another instance swept a stopped one's slices).
     */
    @Test
    void aHoldWhosePlacingFailedLeavesNoMoneyInTheSliceAfterAReconciliation() throws Exception {
        JdbcBillingLedger paused = secondInstance(Duration.ofSeconds(2));
        try {
            Payer payer = newPayer(dollars("1"), null);
            String failed = newRequestId();
            paused.placeButFail(hold(payer, failed, dollars("0.1"), Instant.now()));
            assertTrue(holdOpen(failed), "committed although its request was refused");
            paused.pauseUpkeep();
            Thread.sleep(2_500); // its lease runs out

            paused.returnSlices(); // reconciled first (the lease had run out), then the idle slice given back
            paused.withdrawNow(failed);
            assertFalse(holdOpen(failed));
            assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", payer.accountId().value()),
                    "nothing left reserved");
            assertEquals(1_000_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                    payer.accountId().value()), "all of it spendable again, nothing charged");
            assertConserved(payer.accountId(), 1_000_000);
        } finally {
            paused.close();
        }
    }

    /**
     * A hold whose row is not committed yet when its own instance finds its lease ran out and reconciles (found by
     * a code review): the reconciliation counts the committed holds only, so it gave that hold's amount back to the
     * balance too, and the hold's settlement then found the slice row short of its charge (the database refused
     * it, and the request went unbilled). What holds still being placed took now stays in the slice row.
     */
    @Test
    void aHoldStillBeingPlacedWhenItsInstanceReconcilesKeepsItsMoneyInTheSlice() throws Exception {
        JdbcBillingLedger paused = secondInstance(Duration.ofSeconds(2));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        try {
            Payer payer = newPayer(dollars("1"), null);
            String first = newRequestId();
            assertEquals(HoldOutcome.PLACED, paused.placeHold(hold(payer, first, dollars("0.1"), Instant.now())));
            assertTrue(paused.settle(settlement(payer, first, dollars("0.1"), Instant.now())));
            paused.pauseUpkeep();
            paused.beforeHoldWrite = () -> {
                taken.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            String inFlight = newRequestId();
            java.util.concurrent.Future<HoldOutcome> placing = pool.submit(
                    () -> paused.placeHold(hold(payer, inFlight, dollars("0.2"), Instant.now())));
            assertTrue(taken.await(10, TimeUnit.SECONDS), "the hold's amount is taken, its row not yet written");
            paused.beforeHoldWrite = null;
            Thread.sleep(2_500); // the lease runs out

            paused.returnSlices(); // finds the lapse: reconciles, then gives the idle remainder back
            go.countDown();
            assertEquals(HoldOutcome.PLACED, placing.get(10, TimeUnit.SECONDS));
            assertTrue(holdOpen(inFlight));
            assertTrue(paused.settle(settlement(payer, inFlight, dollars("0.15"), Instant.now())),
                    "the slice row still covers the hold it took");
            paused.returnSlices();
            assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", payer.accountId().value()));
            assertEquals(750_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                    payer.accountId().value()), "$1 less the two charges");
            assertConserved(payer.accountId(), 1_000_000);
        } finally {
            go.countDown();
            pool.shutdownNow();
            paused.close();
        }
    }

    /**
     * A code review (2026-11-29): a settlement committed — its refund in the slice row — and then, before the refund
     * reached memory, the instance found its lease lapsed and reconciled. The reconciliation gave the refund to the
     * balance, and memory got it as well: money spendable twice, which the slice row could not cover. Settlement
     * batches and the reconciliation now exclude each other.
     */
    @Test
    void aReconciliationDoesNotGiveBackARefundOnItsWayToMemory() throws Exception {
        JdbcBillingLedger paused = secondInstance(Duration.ofSeconds(2));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        CountDownLatch committed = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        try {
            Payer payer = newPayer(dollars("1"), null);
            String request = newRequestId();
            assertEquals(HoldOutcome.PLACED, paused.placeHold(hold(payer, request, dollars("0.2"), Instant.now())));
            paused.pauseUpkeep();
            paused.afterSettlementCommit = () -> {
                committed.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            java.util.concurrent.Future<Boolean> settling = pool.submit(
                    () -> paused.settle(settlement(payer, request, dollars("0.05"), Instant.now())));
            assertTrue(committed.await(10, TimeUnit.SECONDS), "the settlement committed, its refund not yet given back");
            paused.afterSettlementCommit = null;
            Thread.sleep(2_500); // the lease runs out
            java.util.concurrent.Future<?> reconciling = pool.submit(paused::returnSlices); // reconciles first
            Thread.sleep(500);
            go.countDown();
            assertTrue(settling.get(10, TimeUnit.SECONDS));
            reconciling.get(10, TimeUnit.SECONDS);
            paused.returnSlices();
            assertEquals(0, paused.unusedSlice(payer.accountId().value()), "nothing remembered that the row lacks");
            assertEquals(0, queryLong("SELECT reserved_micros FROM account WHERE id = ?", payer.accountId().value()));
            assertEquals(950_000, queryLong("SELECT balance_micros FROM account WHERE id = ?",
                    payer.accountId().value()), "$1 less the one charge, nothing given back twice");
            assertConserved(payer.accountId(), 1_000_000);
        } finally {
            go.countDown();
            pool.shutdownNow();
            paused.close();
        }
    }

    /**
     * A lease too old to trust makes every hold renew it first. On a slow database the renewal takes long: the
     * holds that find it under way wait for it at most the statement timeout and then fail as the database being
     * unavailable (503), instead of queueing for a renewal each (a fault audit saw 503s after up to 49 s).
     */
    @Test
    void aHoldWaitsForARenewalUnderWayAtMostTheStatementTimeout() throws Exception {
        JdbcBillingLedger slow = secondInstance(Duration.ofSeconds(2)); // statement timeout 1 s
        try {
            Payer payer = newPayer(dollars("1"), null);
            String first = newRequestId();
            assertEquals(HoldOutcome.PLACED, slow.placeHold(hold(payer, first, dollars("0.1"), Instant.now())));
            assertTrue(slow.settle(settlement(payer, first, dollars("0.1"), Instant.now())));
            slow.pauseUpkeep();
            Thread.sleep(1_500); // older than the two thirds of its lease this instance trusts

            java.util.concurrent.CountDownLatch renewing = new java.util.concurrent.CountDownLatch(1);
            Thread renewal = new Thread(() -> {
                try {
                    slow.renewingFor(Duration.ofSeconds(3), renewing::countDown);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            renewal.start();
            assertTrue(renewing.await(5, TimeUnit.SECONDS));
            long started = System.nanoTime();
            RuntimeException failure = assertThrows(RuntimeException.class,
                    () -> slow.placeHold(hold(payer, newRequestId(), dollars("0.1"), Instant.now())));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis >= 900 && tookMillis < 2_000, "waited " + tookMillis + " ms");
            boolean transientCause = false;
            for (Throwable t = failure; t != null; t = t.getCause()) {
                transientCause |= t instanceof java.sql.SQLTransientException;
            }
            assertTrue(transientCause, "answered as the database being unavailable: " + failure);
            renewal.join();

            String after = newRequestId();
            assertEquals(HoldOutcome.PLACED, slow.placeHold(hold(payer, after, dollars("0.1"), Instant.now())),
                    "renewed by the hold itself once the database answers");
            assertTrue(slow.settle(settlement(payer, after, dollars("0.1"), Instant.now())));
            assertConserved(payer.accountId(), 1_000_000);
        } finally {
            slow.close();
        }
    }

    @Test
    void oneAccountWhoseBooksDoNotAddUpDoesNotKeepTheOthersSlicesOfAStoppedInstance() throws Exception {
        JdbcBillingLedger dying = secondInstance(Duration.ofSeconds(2));
        Payer broken = newPayer(dollars("3"), null);
        Payer fine = newPayer(dollars("3"), null);
        for (Payer payer : List.of(broken, fine)) {
            String requestId = newRequestId();
            assertEquals(HoldOutcome.PLACED, dying.placeHold(hold(payer, requestId, dollars("0.1"), Instant.now())));
            assertTrue(dying.settle(settlement(payer, requestId, dollars("0.1"), Instant.now())));
        }
        dying.abandon();
        try (Connection connection = connect(); PreparedStatement damage = connection.prepareStatement(
                "UPDATE account SET reserved_micros = 0 WHERE id = ?")) {
            damage.setObject(1, broken.accountId().value()); // by hand, as an operator's mistake would
            damage.executeUpdate();
        }

        ledger.releaseExpired(Instant.now(), 100);
        ledger.releaseExpired(Instant.now().plusSeconds(5), 100);

        assertEquals(0, queryLong("SELECT count(*) FROM balance_slice WHERE account_id = ?",
                fine.accountId().value()), "the sound account's slice is back");
        assertConserved(fine.accountId(), 3_000_000);
        assertEquals(1, queryLong("SELECT count(*) FROM balance_slice WHERE account_id = ?",
                broken.accountId().value()), "the damaged one is left for the operator");
    }

    @Test
    void aSettlementTheDatabaseRefusesFailsAloneNotTheOthersInItsBatch() throws Exception {
        Payer innocent = newPayer(dollars("1"), null);
        String fine = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(innocent, fine, dollars("0.1"), NOW)));
        // A hold whose money is in no slice and not reserved (as a frozen instance's was before the fix above):
        // charging it would take the account's reserved money below zero, which the database refuses.
        Payer broken = newPayer(dollars("1"), null);
        String refused = newRequestId();
        try (Connection connection = connect(); PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO request_hold (request_id, account_id, api_key_id, amount_micros, admitted_at, "
                        + "lease_until, instance_id) VALUES (?, ?, ?, 100000, now(), now() + interval '1 hour', "
                        + "'ghost')")) {
            insert.setString(1, refused);
            insert.setObject(2, broken.accountId().value());
            insert.setObject(3, broken.apiKeyId().value());
            insert.executeUpdate();
        }

        List<Boolean> outcomes = ledger.writeSettlementsApart(List.of(settlement(broken, refused, dollars("0.1"), NOW),
                settlement(innocent, fine, dollars("0.05"), NOW)));

        assertEquals(List.of(false, true), outcomes);
        assertEquals(50_000, ledgerRows(fine).get(0).costMicros(), "the other account's settlement stands");
        assertTrue(holdOpen(refused), "the refused one is left to the sweeper");
        assertFalse(holdOpen(fine));
    }

    // ---------------------------------------------------------------------------------------------------------
    // G5: period boundaries

    /**
     * G5: 1,000 requests admitted in [T − 2 s, T + 2 s] around a daily, a weekly (Monday) and a monthly boundary,
     * all settled after the boundary: each counts in exactly the window it was admitted in, to the millisecond; a
     * lifetime limit never resets.
     */
    @Test
    void g5ThousandRequestsAroundEachBoundaryCountInTheWindowTheyWereAdmittedIn() throws Exception {
        record Boundary(LimitReset reset, Instant at) {
        }
        List<Boundary> boundaries = List.of(
                new Boundary(LimitReset.DAILY, Instant.parse("2026-05-13T00:00:00Z")),    // a Wednesday
                new Boundary(LimitReset.WEEKLY, Instant.parse("2026-05-18T00:00:00Z")),   // a Monday
                new Boundary(LimitReset.MONTHLY, Instant.parse("2026-06-01T00:00:00Z")),  // a Monday too
                new Boundary(null, Instant.parse("2026-07-01T00:00:00Z")));               // lifetime
        java.util.Random random = new java.util.Random(5);
        for (Boundary boundary : boundaries) {
            Payer payer = newPayer(dollars("1000"), boundary.reset() == null
                    ? SpendLimit.lifetime(dollars("500")) : new SpendLimit(dollars("500"), boundary.reset()));
            Instant settledAt = boundary.at().plusSeconds(3);
            AtomicLong before = new AtomicLong();
            AtomicLong after = new AtomicLong();
            List<Runnable> requests = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                // uniform in [T - 2 s, T + 2 s], plus the two instants that matter most: T - 1 ms and T
                long offset = i == 0 ? -1 : i == 1 ? 0 : random.nextInt(4001) - 2000;
                Instant admitted = boundary.at().plusMillis(offset);
                long cost = 1 + random.nextInt(1000);
                requests.add(() -> {
                    String requestId = newRequestId();
                    assertEquals(HoldOutcome.PLACED, ledger.placeHold(hold(payer, requestId, Usd.ofMicros(cost),
                            admitted)));
                    assertTrue(ledger.settle(settlement(payer, requestId, Usd.ofMicros(cost), settledAt)));
                    (admitted.isBefore(boundary.at()) ? before : after).addAndGet(cost);
                });
            }
            assertNoneFailed(runConcurrently(8, requests), requests.size());

            KeyUsage old = usage(payer.apiKeyId(), boundary.at().minusMillis(1));
            KeyUsage fresh = usage(payer.apiKeyId(), boundary.at());
            long total = before.get() + after.get();
            assertEquals(total, fresh.total().micros(), "the lifetime total counts every request once");
            assertEquals(total, old.total().micros());
            if (boundary.reset() == null) {
                continue; // nothing resets; the lifetime total is the whole check
            }
            Usd oldWindow = switch (boundary.reset()) {
                case DAILY -> old.daily();
                case WEEKLY -> old.weekly();
                case MONTHLY -> old.monthly();
            };
            Usd newWindow = switch (boundary.reset()) {
                case DAILY -> fresh.daily();
                case WEEKLY -> fresh.weekly();
                case MONTHLY -> fresh.monthly();
            };
            assertEquals(before.get(), oldWindow.micros(), boundary.reset() + ": admitted before " + boundary.at());
            assertEquals(after.get(), newWindow.micros(), boundary.reset() + ": admitted at or after "
                    + boundary.at() + " (usage resets at 00:00:00.000 UTC)");
        }
    }
}
