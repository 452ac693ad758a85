package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.adapter.out.persistence.common.DedicatedConnection;
import dev.tollgate.adapter.out.persistence.common.GroupCommit;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.SpendLimitPolicy;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.SpendWindows;
import io.micronaut.context.annotation.Value;
import io.micronaut.jdbc.DataSourceResolver;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: {@link BillingLedger} on PostgreSQL, built so that the busiest rows (an account's balance, a
 * key's spend) are not written once per request (docs/decisions.md, "Balance slices").
 * <ul>
 * <li>The balance: a hold is taken from this instance's slice of the account's balance ({@link BalanceSlices}) —
 * money already moved out of {@code balance_micros} — so no two instances can spend the same dollar.</li>
 * <li>The hold row: every hold is committed to {@code request_hold} before the call returns (so before anything
 * goes upstream), in batches ({@link GroupCommit}). For a key with a limit, the batch locks the key's row and checks
 * settled spend plus open holds in the limit's window ({@link SpendLimitPolicy}), so the cap holds across
 * instances.</li>
 * <li>Settlements are batched the same way: one transaction deletes the holds (only the first settlement of a
 * request finds its hold), writes the ledger rows, adds the charges to the keys' spend rows and takes them from the
 * slices — one update per hot row per batch.</li>
 * <li>This instance registers in {@code gateway_instance} and renews its lease while it runs; holds and slices of an
 * instance whose lease ran out (killed, crashed) are released by any other instance's sweep.</li>
 * </ul>
 */
@Singleton
public class JdbcBillingLedger implements BillingLedger {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcBillingLedger.class);
    private static final long WAIT_SECONDS = 30;
    private static final int MAX_BATCH = 256;
    private static final int ATTEMPTS = 3;
    private static final Duration SETTLEMENT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);
    /** Waits between attempts of a settlement whose batch failed (database unavailable): about a minute in all. */
    private static final long[] SETTLEMENT_BACKOFF_MILLIS = {100, 250, 500, 1000, 2000, 4000, 8000, 15000, 30000};
    /**
     * After those, a settlement that knows its hold's lease is tried this often until {@link #LEASE_MARGIN} before the
     * hold's lease runs out: a database back after a longer outage still gets the charge of an answer its client
     * had (an audit: an outage of 95 s left four served requests unbilled, their holds locked for 15 minutes).
     */
    private static final long LATE_RETRY_MILLIS = 10_000;
    /** How long before a hold's lease its settlement stops being tried (the sweep releases it at no charge then). */
    private static final Duration LEASE_MARGIN = Duration.ofSeconds(30);

    private record Settled(OpenHold hold, long charge) {
    }

    private record OpenHold(String requestId, UUID accountId, UUID apiKeyId, long amountMicros, Instant admittedAt,
            String instanceId) {
    }

    private final TransactionOperations<Connection> transactions;
    private final Clock clock;
    private final String instanceId = UUID.randomUUID().toString();
    private final Duration instanceLease;
    private final long idleReturnNanos;
    private final BalanceSlices slices;
    private final DedicatedConnection holdConnection;
    private final DedicatedConnection settlementConnection;
    private final GroupCommit<HoldRequest, HoldOutcome> holds;
    private final GroupCommit<Settlement, Boolean> settlements;
    private final Object registration = new Object();
    private volatile ScheduledExecutorService upkeep;
    /** When the last renewal of this instance's lease began (the clock's time), or null before the first. */
    private volatile Instant renewedAt;
    /**
     * Since when this instance has renewed its lease without a gap longer than it trusts a renewal: only a while
     * after that does it take another instance whose lease ran out for stopped. Right after a database stall every
     * lease has run out, the live ones too, and the instance whose sweep came first would otherwise release the
     * holds of requests still running elsewhere; a live instance renews within a renewal interval of the database
     * coming back.
     */
    private volatile Instant healthySince;
    /** A request that ended and whose settlement follows ({@link #ending}). */
    private record Ending(UUID account, long sinceNanos) {
    }

    private static final long ENDING_TRUSTED_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final Map<String, Ending> endings = new ConcurrentHashMap<>();
    /**
     * When a settlement of each account last landed here ({@link System#nanoTime}): a hold its key's limit refused
     * while it landed tries again, though no settlement is coming any more (kept ten seconds, like endings).
     */
    private final Map<UUID, Long> settledAt = new ConcurrentHashMap<>();
    /** Tests: runs between a hold's refusal by its key's limit and the look for a settlement that may change it. */
    volatile Runnable afterKeyLimitRefusal;
    /** Tests: runs after a hold's amount was taken from the slice and before its row is written. */
    volatile Runnable beforeHoldWrite;
    /** Tests: runs after a settlement batch committed and before its refunds are given back to the slices. */
    volatile Runnable afterSettlementCommit;

    /**
     * Requests whose hold placing failed (refused, nothing sent upstream) while the hold may still have been
     * committed: their amount went back to this instance's slice at once, so a hold of theirs found later is not
     * covered by the slice — withdrawing or expiring it moves no money, and a reconciliation leaves it out.
     */
    private final Set<String> limbo = ConcurrentHashMap.newKeySet();
    /** Held while the lease is renewed: by the upkeep, or by a request that found the lease too old to trust. */
    private final java.util.concurrent.locks.ReentrantLock renewal = new java.util.concurrent.locks.ReentrantLock();
    /** Longest a request waits for a renewal another thread has begun (the statement timeout). */
    private final Duration renewalWait;
    /**
     * Held while a settlement batch is written and its refunds given back to the slices, and while the slices are
     * reconciled: a reconciliation that read a committed settlement's slice row (its refund in it) before the refund
     * reached memory gave the refund to the balance and memory then got it too — money spendable twice.
     */
    private final java.util.concurrent.locks.ReentrantLock settling = new java.util.concurrent.locks.ReentrantLock();
    /**
     * Set when the lease was found lapsed, cleared once the slices are reconciled: a reconciliation that failed part
     * way (the database gone again) is done at the next renewal, which no longer finds the lease lapsed.
     */
    private volatile boolean reconcileOwed;

    JdbcBillingLedger(TransactionOperations<Connection> transactions, DataSource dataSource,
            DataSourceResolver resolver, Clock clock,
            @Value("${tollgate.billing.slice-usd:1}") BigDecimal sliceUsd,
            @Value("${tollgate.billing.slice-idle-return:1s}") Duration idleReturn,
            @Value("${tollgate.billing.instance-lease:15s}") Duration instanceLease,
            @Value("${tollgate.billing.statement-timeout:1s}") Duration statementTimeout,
            @Value("${tollgate.billing.settlement-linger:5ms}") Duration settlementLinger,
            @Value("${tollgate.billing.refusal-wait:500ms}") Duration refusalWait) {
        this.transactions = transactions;
        this.refusalWaitNanos = refusalWait.toNanos();
        DataSource pool = resolver.resolve(dataSource);
        // Holds and settlements commit without waiting for the WAL flush (docs/decisions.md): locks, checks and
        // constraints work exactly as before, so no cap or balance can be overrun; only a crash of PostgreSQL itself
        // (not of a gateway) can lose the last few hundred milliseconds of them, which then go unbilled.
        // A hold fails fast (the request gets 503, nothing goes upstream); a settlement may wait longer and is retried.
        this.holdConnection = new DedicatedConnection(pool, List.of("SET synchronous_commit = off",
                "SET statement_timeout = " + statementTimeout.toMillis()), statementTimeout.plusSeconds(1));
        this.settlementConnection = new DedicatedConnection(pool, List.of("SET synchronous_commit = off",
                "SET statement_timeout = " + SETTLEMENT_STATEMENT_TIMEOUT.toMillis()),
                SETTLEMENT_STATEMENT_TIMEOUT.plusSeconds(5));
        this.clock = clock;
        this.instanceLease = instanceLease;
        this.idleReturnNanos = idleReturn.toNanos();
        this.renewalWait = statementTimeout;
        this.slices = new BalanceSlices(transactions, instanceId, Usd.ofDollars(sliceUsd).micros(), limbo,
                this::settlementComing);
        this.holds = new GroupCommit<>("billing-holds", MAX_BATCH, batch -> retried(() -> writeHolds(batch)));
        this.settlements = new GroupCommit<>("billing-settlements", MAX_BATCH, settlementLinger.toNanos(),
                batch -> retried(() -> writeSettlementsApart(batch)));
    }

    /** An instant as a timestamptz, cut to the microsecond PostgreSQL stores (never rounded into the next window). */
    private static OffsetDateTime utc(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    /** Waits before each new try of a hold its key's limit refused while a settlement of the account is coming. */
    private static final long[] KEY_LIMIT_WAITS_MILLIS = {5, 10, 20, 50, 100};
    /**
     * The longest a hold waits on purpose — for a refund on its way, or for money recalled from other instances —
     * before it is refused ({@code tollgate.billing.refusal-wait}): well inside the admission deadline, so that a
     * request the money cannot cover gets its 429, not the 503 of a database that did not answer.
     */
    private final long refusalWaitNanos;

    /**
     * Places the hold; one its key's limit refuses is tried again for a moment while a settlement of the account
     * is on its way here, or another instance holds for the key (the request that just ended still counts against
     * the limit at its whole hold until it is settled).
     */
    @Override
    public HoldOutcome placeHold(HoldRequest hold) {
        UUID account = hold.accountId().value();
        long waitUntil = System.nanoTime() + refusalWaitNanos;
        for (int waits = 0; ; waits++) {
            long tried = System.nanoTime();
            HoldOutcome outcome = placeOnce(hold, waitUntil);
            if (outcome != HoldOutcome.KEY_LIMIT_REACHED || waits == KEY_LIMIT_WAITS_MILLIS.length
                    || tried + TimeUnit.MILLISECONDS.toNanos(KEY_LIMIT_WAITS_MILLIS[waits]) - waitUntil > 0) {
                return outcome;
            }
            Runnable hook = afterKeyLimitRefusal;
            if (hook != null) {
                hook.run();
            }
            // A settlement that landed since this try began may have made room (the client sent its next request
            // the moment the last answer arrived, and the refusal was decided just before that request's
            // settlement committed): at once. One still coming, or a hold of the key elsewhere: after a wait.
            Long settled = settledAt.get(account);
            if (settled != null && settled - tried >= 0) {
                continue;
            }
            if (!(settlementComing(account) || heldElsewhere(hold.apiKeyId().value()))) {
                return outcome;
            }
            try {
                Thread.sleep(KEY_LIMIT_WAITS_MILLIS[waits]);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return outcome;
            }
        }
    }

    private HoldOutcome placeOnce(HoldRequest hold, long waitUntil) {
        registered();
        long amount = hold.amount().micros();
        if (amount > 0 && !slices.take(hold.accountId(), amount, waitUntil)) {
            return HoldOutcome.INSUFFICIENT_BALANCE;
        }
        HoldOutcome outcome;
        try {
            Runnable hook = beforeHoldWrite;
            if (hook != null) {
                hook.run();
            }
            outcome = holds.submit(hold, WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            placingFailed(hold);
            slices.placingEnded(hold.accountId(), amount);
            throw e;
        }
        if (outcome == HoldOutcome.PLACED) {
            slices.used(hold.accountId());
        } else {
            slices.giveBack(hold.accountId().value(), amount);
        }
        slices.placingEnded(hold.accountId(), amount);
        return outcome;
    }

    /**
     * Settles through the group commit; a batch that fails (database unavailable) is retried with backoff for about a
     * minute, so an outage does not leave holds behind. After that the hold is left to the sweeper (released at no
     * charge when its lease runs out) and this returns false.
     */
    /**
     * A request of the account ended; its settlement follows once its answer is written. Until it lands, a hold
     * the balance cannot cover waits for its refund rather than being refused (a client that sends its next request
     * the moment the last answer arrives was told it had no money, with money left).
     */
    @Override
    public void ending(String requestId, AccountId account) {
        endings.put(requestId, new Ending(account.value(), System.nanoTime()));
    }

    /**
     * Whether another instance holds for the key (a request of it that may just have ended there, its settlement a
     * moment away). Asked only when the key's limit refused a hold.
     */
    private boolean heldElsewhere(UUID apiKey) {
        return transactions.executeRead(status -> {
            try (PreparedStatement query = status.getConnection().prepareStatement("SELECT EXISTS (SELECT 1 FROM "
                    + "request_hold WHERE api_key_id = ? AND instance_id <> ?)")) {
                query.setObject(1, apiKey);
                query.setString(2, instanceId);
                try (ResultSet rs = query.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        });
    }

    /** Whether a settlement of the account is on its way here (an ending not older than a few seconds). */
    private boolean settlementComing(UUID account) {
        long now = System.nanoTime();
        boolean coming = false;
        for (Map.Entry<String, Ending> entry : endings.entrySet()) {
            if (now - entry.getValue().sinceNanos() > ENDING_TRUSTED_NANOS) {
                endings.remove(entry.getKey(), entry.getValue()); // its settlement went elsewhere
            } else if (entry.getValue().account().equals(account)) {
                coming = true;
            }
        }
        return coming;
    }

    @Override
    public boolean settle(Settlement settlement) {
        boolean settled = false;
        try {
            settled = settleRetried(settlement);
            return settled;
        } finally {
            // Landed before no longer coming: a refused hold looking in between sees one or the other.
            Ending ending = endings.get(settlement.requestId());
            if (settled && ending != null) {
                long now = System.nanoTime();
                settledAt.put(ending.account(), now);
                if (settledAt.size() > 4096) {
                    settledAt.values().removeIf(at -> now - at > ENDING_TRUSTED_NANOS);
                }
            }
            endings.remove(settlement.requestId());
        }
    }

    private boolean settleRetried(Settlement settlement) {
        for (int attempt = 0; ; attempt++) {
            try {
                return settlements.submit(settlement, WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (RuntimeException e) {
                long wait = attempt < SETTLEMENT_BACKOFF_MILLIS.length ? SETTLEMENT_BACKOFF_MILLIS[attempt]
                        : lateRetryWait(clock.instant(), settlement.holdLeaseUntil());
                if (wait < 0 || settlements.isClosed()) {
                    LOG.error("Settlement of {} failed {} times; its hold is released at no charge when its lease "
                            + "runs out: {}", settlement.requestId(), attempt + 1, e.getMessage());
                    return false;
                }
                if (attempt < SETTLEMENT_BACKOFF_MILLIS.length || attempt % 6 == 0) { // late ones: once a minute
                    LOG.warn("Settlement of {} failed, retrying in {} ms: {}", settlement.requestId(), wait,
                            e.getMessage());
                }
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    /**
     * The wait before another late try of a settlement at {@code now}, or -1 when there is none: its hold's lease is
     * not known ({@code until} null), or ends within {@link #LEASE_MARGIN} of the next try.
     */
    static long lateRetryWait(Instant now, Instant until) {
        if (until == null) {
            return -1;
        }
        Instant next = now.plusMillis(LATE_RETRY_MILLIS);
        return next.plus(LEASE_MARGIN).isBefore(until) ? LATE_RETRY_MILLIS : -1;
    }

    // ---- holds ----

    private record Window(UUID key, Instant start) {
    }

    /** One batch of holds, as the group commit writes it (package-private for tests of mixed batches). */
    List<HoldOutcome> writeHolds(List<HoldRequest> batch) throws SQLException {
        if (insertUnlessLimited(batch)) {
            return batch.stream().map(h -> HoldOutcome.PLACED).toList();
        }
        return holdConnection.inTransaction(connection -> {
            Map<UUID, SpendLimit> limits = lockLimitedKeys(connection,
                    batch.stream().map(h -> h.apiKeyId().value()).distinct().toList());
            // What each limited key has spent and holds in the windows this batch's holds fall in.
            Map<Window, Long> used = new HashMap<>();
            for (HoldRequest hold : batch) {
                SpendLimit limit = limits.get(hold.apiKeyId().value());
                if (limit != null) {
                    Window window = window(hold.apiKeyId().value(), limit, hold.admittedAt());
                    if (!used.containsKey(window)) {
                        used.put(window, spent(connection, window, limit) + held(connection, window));
                    }
                }
            }
            List<HoldOutcome> outcomes = new ArrayList<>(batch.size());
            List<HoldRequest> placed = new ArrayList<>(batch.size());
            for (HoldRequest hold : batch) {
                UUID key = hold.apiKeyId().value();
                SpendLimit limit = limits.get(key);
                if (limit != null) {
                    Window window = window(key, limit, hold.admittedAt());
                    if (!SpendLimitPolicy.allows(limit, Usd.ZERO, Usd.ofMicros(used.get(window)), hold.amount())) {
                        outcomes.add(HoldOutcome.KEY_LIMIT_REACHED);
                        continue;
                    }
                    // A hold counts in every tracked window of its key that started at or before its admission.
                    for (Map.Entry<Window, Long> entry : used.entrySet()) {
                        if (entry.getKey().key().equals(key) && !entry.getKey().start().isAfter(hold.admittedAt())) {
                            entry.setValue(entry.getValue() + hold.amount().micros());
                        }
                    }
                }
                outcomes.add(HoldOutcome.PLACED);
                placed.add(hold);
            }
            insertHolds(connection, placed);
            return outcomes;
        });
    }

    /**
     * The common case in one round trip: when no key of the batch has a limit there is nothing to check, and the
     * holds are inserted by a single statement that commits on its own. Returns false (and inserts nothing) when a
     * key has a limit; the batch then takes the locking path.
     */
    private boolean insertUnlessLimited(List<HoldRequest> batch) throws SQLException {
        int inserted = holdConnection.autoCommitted(connection -> {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_hold (request_id, "
                    + "account_id, api_key_id, amount_micros, admitted_at, lease_until, instance_id) "
                    + "SELECT h.*, ? FROM unnest(?::text[], ?::uuid[], ?::uuid[], ?::int8[], ?::timestamptz[], "
                    + "?::timestamptz[]) AS h WHERE NOT EXISTS (SELECT 1 FROM api_key "
                    + "WHERE id = ANY (?::uuid[]) AND limit_micros IS NOT NULL)")) {
                int n = batch.size();
                Object[] requestIds = new Object[n];
                Object[] accounts = new Object[n];
                Object[] keys = new Object[n];
                Object[] amounts = new Object[n];
                Object[] admitted = new Object[n];
                Object[] leases = new Object[n];
                for (int i = 0; i < n; i++) {
                    HoldRequest hold = batch.get(i);
                    requestIds[i] = hold.requestId();
                    accounts[i] = hold.accountId().value();
                    keys[i] = hold.apiKeyId().value();
                    amounts[i] = hold.amount().micros();
                    admitted[i] = timestamp(hold.admittedAt());
                    leases[i] = timestamp(hold.leaseUntil());
                }
                insert.setString(1, instanceId);
                insert.setArray(2, connection.createArrayOf("text", requestIds));
                insert.setArray(3, connection.createArrayOf("uuid", accounts));
                insert.setArray(4, connection.createArrayOf("uuid", keys));
                insert.setArray(5, connection.createArrayOf("int8", amounts));
                insert.setArray(6, connection.createArrayOf("text", admitted));
                insert.setArray(7, connection.createArrayOf("text", leases));
                insert.setArray(8, connection.createArrayOf("uuid", keys));
                return insert.executeUpdate();
            }
        });
        if (inserted != 0 && inserted != batch.size()) {
            throw new IllegalStateException("inserted " + inserted + " of " + batch.size() + " holds");
        }
        return inserted == batch.size();
    }

    /** An instant as text PostgreSQL reads as a timestamptz, cut the same way as {@link #utc}. */
    private static String timestamp(Instant instant) {
        return utc(instant).toString();
    }

    private static Window window(UUID key, SpendLimit limit, Instant at) {
        return new Window(key, limit.resetPeriod().map(p -> SpendWindows.windowStart(p, at)).orElse(Instant.EPOCH));
    }

    /** Locks the rows of the keys (among {@code keys}) that have a limit, in id order; returns their limits. */
    private static Map<UUID, SpendLimit> lockLimitedKeys(Connection connection, List<UUID> keys) throws SQLException {
        Map<UUID, SpendLimit> limits = new HashMap<>();
        try (PreparedStatement lock = connection.prepareStatement("SELECT id, limit_micros, limit_reset FROM api_key "
                + "WHERE id = ANY (?) AND limit_micros IS NOT NULL ORDER BY id FOR NO KEY UPDATE")) {
            lock.setArray(1, uuids(connection, keys));
            try (ResultSet rs = lock.executeQuery()) {
                while (rs.next()) {
                    String reset = rs.getString(3);
                    limits.put(rs.getObject(1, UUID.class), new SpendLimit(Usd.ofMicros(rs.getLong(2)),
                            reset == null ? null : LimitReset.fromWireName(reset).orElseThrow()));
                }
            }
        }
        return limits;
    }

    private static long spent(Connection connection, Window window, SpendLimit limit) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT coalesce(sum(spent_micros), 0) "
                + "FROM api_key_spend WHERE api_key_id = ? AND period = ? AND period_start = ?")) {
            query.setObject(1, window.key());
            query.setString(2, limit.resetPeriod().map(LimitReset::wireName).orElse("lifetime"));
            query.setObject(3, utc(window.start()));
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static long held(Connection connection, Window window) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT coalesce(sum(amount_micros), 0) "
                + "FROM request_hold WHERE api_key_id = ? AND admitted_at >= ?")) {
            query.setObject(1, window.key());
            query.setObject(2, utc(window.start()));
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void insertHolds(Connection connection, List<HoldRequest> placed) throws SQLException {
        if (placed.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_hold (request_id, "
                + "account_id, api_key_id, amount_micros, admitted_at, lease_until, instance_id) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (HoldRequest hold : placed) {
                insert.setString(1, hold.requestId());
                insert.setObject(2, hold.accountId().value());
                insert.setObject(3, hold.apiKeyId().value());
                insert.setLong(4, hold.amount().micros());
                insert.setObject(5, utc(hold.admittedAt()));
                insert.setObject(6, utc(hold.leaseUntil()));
                insert.setString(7, instanceId);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    // ---- settlements ----

    /**
     * One batch of settlements; when the database refuses the batch for a rule one of them breaks (a constraint),
     * each is written on its own, so that only that one fails — never the settlements of other accounts that
     * happened to share its transaction. The one that fails is left to the sweeper (released at no charge).
     */
    List<Boolean> writeSettlementsApart(List<Settlement> batch) throws SQLException {
        try {
            return writeSettlements(batch);
        } catch (SQLException e) {
            if (batch.size() == 1 || !brokenRule(e)) {
                throw e;
            }
            LOG.warn("A batch of {} settlements broke a rule of the database ({}); writing them one by one",
                    batch.size(), e.getMessage());
            List<Boolean> outcomes = new ArrayList<>(batch.size());
            for (Settlement settlement : batch) {
                try {
                    outcomes.add(retried(() -> writeSettlements(List.of(settlement))).get(0));
                } catch (SQLException one) {
                    if (!brokenRule(one)) {
                        throw one;
                    }
                    LOG.error("Settlement of {} breaks a rule of the database; its hold is released at no charge "
                            + "when its lease runs out: {}", settlement.requestId(), one.getMessage());
                    outcomes.add(false);
                }
            }
            return outcomes;
        }
    }

    /** An integrity constraint violation (SQLSTATE class 23), as opposed to the database being unavailable. */
    private static boolean brokenRule(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    private List<Boolean> writeSettlements(List<Settlement> batch) throws SQLException {
        settling.lock();
        try {
            return writeSettlementsSettling(batch);
        } finally {
            settling.unlock();
        }
    }

    private List<Boolean> writeSettlementsSettling(List<Settlement> batch) throws SQLException {
        List<Settled> done = new ArrayList<>();
        List<Boolean> results;
        try {
            results = settlementConnection.inTransaction(connection -> {
                done.clear();
                Map<String, OpenHold> found = deleteHolds(connection,
                        batch.stream().map(Settlement::requestId).distinct().toList());
                if (!found.isEmpty()) { // repeated or swept settlements only: nothing to lock or write
                    lockLimitedKeys(connection, found.values().stream().map(OpenHold::apiKeyId).distinct().toList());
                }
                List<Boolean> outcome = new ArrayList<>(batch.size());
                List<Settlement> written = new ArrayList<>();
                for (Settlement settlement : batch) {
                    OpenHold hold = found.remove(settlement.requestId()); // a repeat in the same batch finds nothing
                    outcome.add(hold != null);
                    if (hold != null) {
                        long charge = Math.min(Math.max(settlement.cost().micros(), 0), hold.amountMicros());
                        done.add(new Settled(hold, charge));
                        written.add(settlement);
                    }
                }
                addSpend(connection, done);
                insertLedger(connection, written, done);
                moveMoney(connection, done);
                return outcome;
            });
        } catch (SQLException | RuntimeException e) {
            // It may have committed unseen: its refunds would then be in the slice rows only, until reconciled.
            slices.doubt();
            throw e;
        }
        Runnable hook = afterSettlementCommit;
        if (hook != null) {
            hook.run();
        }
        for (Settled settled : done) {
            // A hold in limbo (an expiry of one never withdrawn): its amount went back when its placing failed.
            if (instanceId.equals(settled.hold().instanceId()) && !limbo.remove(settled.hold().requestId())) {
                slices.giveBack(settled.hold().accountId(), settled.hold().amountMicros() - settled.charge());
            }
        }
        return results;
    }

    private static Map<String, OpenHold> deleteHolds(Connection connection, List<String> requestIds)
            throws SQLException {
        Map<String, OpenHold> found = new HashMap<>();
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM request_hold WHERE request_id = "
                + "ANY (?) RETURNING request_id, account_id, api_key_id, amount_micros, admitted_at, instance_id")) {
            delete.setArray(1, connection.createArrayOf("text", requestIds.toArray()));
            try (ResultSet rs = delete.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), new OpenHold(rs.getString(1), rs.getObject(2, UUID.class),
                            rs.getObject(3, UUID.class), rs.getLong(4),
                            rs.getObject(5, OffsetDateTime.class).toInstant(), rs.getString(6)));
                }
            }
        }
        return found;
    }

    private record SpendRow(UUID key, String period, Instant start) {
    }

    /** §4.1 windows: a charge counts in the windows of the request's admission, lifetime included. */
    private static void addSpend(Connection connection, List<Settled> done) throws SQLException {
        Map<SpendRow, Long> sums = new TreeMap<>((a, b) -> {
            int c = a.key().compareTo(b.key());
            c = c != 0 ? c : a.period().compareTo(b.period());
            return c != 0 ? c : a.start().compareTo(b.start());
        });
        for (Settled settled : done) {
            if (settled.charge() == 0) {
                continue;
            }
            UUID key = settled.hold().apiKeyId();
            Instant at = settled.hold().admittedAt();
            sums.merge(new SpendRow(key, "lifetime", Instant.EPOCH), settled.charge(), Long::sum);
            for (LimitReset period : LimitReset.values()) {
                sums.merge(new SpendRow(key, period.wireName(), SpendWindows.windowStart(period, at)),
                        settled.charge(), Long::sum);
            }
        }
        if (sums.isEmpty()) {
            return;
        }
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO api_key_spend (api_key_id, period, "
                + "period_start, spent_micros) VALUES (?, ?, ?, ?) ON CONFLICT (api_key_id, period, period_start) "
                + "DO UPDATE SET spent_micros = api_key_spend.spent_micros + EXCLUDED.spent_micros")) {
            for (Map.Entry<SpendRow, Long> sum : sums.entrySet()) {
                upsert.setObject(1, sum.getKey().key());
                upsert.setString(2, sum.getKey().period());
                upsert.setObject(3, utc(sum.getKey().start()));
                upsert.setLong(4, sum.getValue());
                upsert.addBatch();
            }
            upsert.executeBatch();
        }
    }

    private static void insertLedger(Connection connection, List<Settlement> written, List<Settled> done)
            throws SQLException {
        if (written.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_ledger (request_id, "
                + "account_id, api_key_id, key_hash, model, provider, prompt_tokens, completion_tokens, held_micros, "
                + "cost_micros, status, admitted_at, finished_at, latency_ms, ttft_ms, streamed) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING")) {
            for (int i = 0; i < written.size(); i++) {
                Settlement s = written.get(i);
                OpenHold hold = done.get(i).hold();
                insert.setString(1, s.requestId());
                insert.setObject(2, hold.accountId());
                insert.setObject(3, hold.apiKeyId());
                insert.setString(4, s.keyHash().hex());
                insert.setString(5, s.model());
                insert.setString(6, s.provider());
                insert.setLong(7, s.usage().promptTokens());
                insert.setLong(8, s.usage().completionTokens());
                insert.setLong(9, hold.amountMicros());
                insert.setLong(10, done.get(i).charge());
                insert.setString(11, s.status());
                insert.setObject(12, utc(hold.admittedAt()));
                insert.setObject(13, utc(s.finishedAt()));
                insert.setObject(14, s.latencyMillis());
                insert.setObject(15, s.timeToFirstTokenMillis());
                insert.setBoolean(16, s.streamed());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private record SliceKey(UUID account, String instance) {
    }

    /**
     * The charges leave the money at rest: a hold covered by a slice is paid from the slice (the slice and the
     * account's reserved amount shrink by the charge; the rest of the hold is back in the slice's unused part); a
     * hold from before slices is paid from reserved and its rest returns to the balance. Accounts first, in id
     * order, then slices — the order every transaction that touches both follows.
     */
    private static void moveMoney(Connection connection, List<Settled> done) throws SQLException {
        Map<UUID, long[]> accounts = new TreeMap<>(); // {reserved decrease, balance increase}
        Map<SliceKey, Long> sliceCharges = new LinkedHashMap<>();
        for (Settled settled : done) {
            OpenHold hold = settled.hold();
            long[] change = accounts.computeIfAbsent(hold.accountId(), a -> new long[2]);
            if (hold.instanceId() != null) {
                change[0] += settled.charge();
                if (settled.charge() > 0) {
                    sliceCharges.merge(new SliceKey(hold.accountId(), hold.instanceId()), settled.charge(),
                            Long::sum);
                }
            } else {
                change[0] += hold.amountMicros();
                change[1] += hold.amountMicros() - settled.charge();
            }
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE account SET reserved_micros = "
                + "reserved_micros - ?, balance_micros = balance_micros + ? WHERE id = ?")) {
            for (Map.Entry<UUID, long[]> entry : accounts.entrySet()) {
                if (entry.getValue()[0] == 0 && entry.getValue()[1] == 0) {
                    continue;
                }
                update.setLong(1, entry.getValue()[0]);
                update.setLong(2, entry.getValue()[1]);
                update.setObject(3, entry.getKey());
                update.addBatch();
            }
            update.executeBatch();
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE balance_slice SET amount_micros = "
                + "amount_micros - ? WHERE account_id = ? AND instance_id = ?")) {
            for (Map.Entry<SliceKey, Long> entry : sliceCharges.entrySet()) {
                update.setLong(1, entry.getValue());
                update.setObject(2, entry.getKey().account());
                update.setString(3, entry.getKey().instance());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    // ---- upkeep: registration, lease renewal, idle slices, sweeping ----

    /** Registers this instance on its first hold (a CLI run never does) and starts renewing its lease. */
    private void registered() {
        if (upkeep != null) {
            leaseStanding();
            return;
        }
        synchronized (registration) {
            if (upkeep != null) {
                return;
            }
            renewLease();
            upkeep = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "billing-upkeep");
                thread.setDaemon(true);
                return thread;
            });
            long renewMillis = renewMillis();
            upkeep.scheduleWithFixedDelay(() -> quietly("lease renewal", this::renewLease), renewMillis, renewMillis,
                    TimeUnit.MILLISECONDS);
            long idleMillis = Math.max(50, idleReturnNanos / 2_000_000);
            upkeep.scheduleWithFixedDelay(() -> quietly("returning idle balance slices", () -> {
                leaseStanding(); // a slice is given back only as the database knows it (after a pause: reconciled)
                slices.returnIdle(idleReturnNanos);
            }), idleMillis, idleMillis, TimeUnit.MILLISECONDS);
            upkeep.scheduleWithFixedDelay(this::returnRecalledSlices, RECALL_CHECK_MILLIS, RECALL_CHECK_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Waits before each try to withdraw a hold whose placing failed: about two minutes in all. */
    private static final long[] WITHDRAW_DELAYS_MILLIS = {5_000, 10_000, 20_000, 40_000, 60_000};

    /**
     * The placing of a hold failed (the database stalled or went away), so its request was refused with nothing
     * sent upstream — yet the hold may have been committed before the failure reached us. Deletes it once the
     * database answers (a few tries, in the background): otherwise it would count against the key's limit until
     * its lease ran out and then show as an expired request that never ran. First try after a few seconds, when a
     * statement still running in the database has either committed or been cancelled.
     */
    void placingFailed(String requestId) {
        limbo.add(requestId);
        withdrawLater(requestId, 0);
    }

    /** Its amount back into the slice, and the hold withdrawn if it was committed after all. */
    private void placingFailed(HoldRequest hold) {
        slices.giveBack(hold.accountId().value(), hold.amount().micros());
        placingFailed(hold.requestId());
    }

    private void withdrawLater(String requestId, int attempt) {
        ScheduledExecutorService scheduler = upkeep;
        if (scheduler == null || attempt >= WITHDRAW_DELAYS_MILLIS.length) {
            return;
        }
        try {
            scheduler.schedule(() -> {
                try {
                    withdraw(requestId);
                } catch (Exception e) { // a database failure may come through the callback unwrapped
                    withdrawLater(requestId, attempt + 1);
                }
            }, WITHDRAW_DELAYS_MILLIS[attempt], TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // stopping: the sweep of the next instance releases it after its lease
        }
    }

    /** How often this instance looks for slices of its that another instance recalled. */
    private static final long RECALL_CHECK_MILLIS = 200;
    /** The last look for recalled slices failed (upkeep thread only): its failures are logged once per outage. */
    private boolean recallCheckFailing;

    private void returnRecalledSlices() {
        try {
            leaseStanding(); // as for idle slices: given back only as the database knows them
            slices.returnRecalled();
            if (recallCheckFailing) {
                recallCheckFailing = false;
                LOG.info("Billing upkeep: recalled balance slices are given back again");
            }
        } catch (Exception e) {
            if (!recallCheckFailing) {
                recallCheckFailing = true;
                LOG.warn("Billing upkeep failed (returning recalled balance slices; not logged again until it "
                        + "works): {}", e.getMessage());
            }
        }
    }

    /** Deletes the hold of a request whose placing failed, if it was committed; the database has answered then. */
    private void withdraw(String requestId) {
        int removed = transactions.executeWrite(status -> {
            try (PreparedStatement delete = status.getConnection().prepareStatement(
                    "DELETE FROM request_hold WHERE request_id = ? AND instance_id = ?")) {
                delete.setString(1, requestId);
                delete.setString(2, instanceId);
                return delete.executeUpdate();
            }
        });
        limbo.remove(requestId); // withdrawn, or never committed
        if (removed > 0) {
            LOG.info("Withdrew the hold of {}, placed as the database failed (the request was refused)", requestId);
        }
    }

    /**
     * Runs an upkeep task so that a failure is logged and the next run still comes: an exception out of a scheduled
     * task would end its schedule for good, silently — and a database failure may arrive as a checked exception
     * thrown through a transaction callback.
     */
    private static void quietly(String what, Runnable task) {
        try {
            task.run();
        } catch (Exception e) {
            LOG.warn("Billing upkeep failed ({}): {}", what, e.getMessage());
        }
    }

    /**
     * Renews the lease now if it was not renewed for most of its length (the process was frozen, or the database
     * away): before a hold is taken from a remembered slice, or a slice given back, this finds out whether another
     * instance took this one for stopped (and then reconciles the slices).
     */
    private void leaseStanding() {
        if (!leaseStale()) {
            return;
        }
        // With a slow database every request finds the lease stale at once: each waits for the renewal already
        // under way, not for one of its own after it (a fault audit saw requests queue here for up to 49 s), and
        // no longer than the statement timeout — then it fails as the database being unavailable (503).
        boolean locked;
        try {
            locked = renewal.tryLock(renewalWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) {
            throw new IllegalStateException("the database did not confirm this instance's billing lease in time",
                    new java.sql.SQLTransientConnectionException("billing lease renewal took over " + renewalWait));
        }
        try {
            if (leaseStale()) {
                renewLease();
            }
        } finally {
            renewal.unlock();
        }
    }

    private boolean leaseStale() {
        Instant renewed = renewedAt;
        return renewed == null || Duration.between(renewed, clock.instant()).compareTo(trustedLease()) > 0;
    }

    /** How long a renewal is trusted here: the lease less a third, for clocks that differ between instances. */
    private Duration trustedLease() {
        return instanceLease.multipliedBy(2).dividedBy(3);
    }

    /** How often the lease is renewed. */
    private long renewMillis() {
        return Math.max(100, instanceLease.toMillis() / 5);
    }

    /**
     * Renews this instance's lease. A lease that had run out — this instance was frozen or cut off from the database
     * for longer than the lease — may have been taken for a stopped instance's by another one, which then released
     * its holds and gave its slices back: the slices it remembers are set to what the database says is left
     * ({@link BalanceSlices#reconcile}) before it takes another hold from them.
     */
    private void renewLease() {
        renewal.lock();
        try {
            Instant now = clock.instant();
            boolean lapsed = transactions.executeWrite(status -> {
                Connection connection = status.getConnection();
                try (PreparedStatement renew = connection.prepareStatement("UPDATE gateway_instance SET alive_until = "
                        + "? WHERE id = ? AND alive_until >= ?")) {
                    renew.setObject(1, utc(now.plus(instanceLease)));
                    renew.setString(2, instanceId);
                    renew.setObject(3, utc(now));
                    if (renew.executeUpdate() == 1) {
                        return false;
                    }
                }
                try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO gateway_instance "
                        + "(id, started_at, alive_until) VALUES (?, ?, ?) ON CONFLICT (id) "
                        + "DO UPDATE SET alive_until = EXCLUDED.alive_until")) {
                    upsert.setString(1, instanceId);
                    upsert.setObject(2, utc(now));
                    upsert.setObject(3, utc(now.plus(instanceLease)));
                    upsert.executeUpdate();
                }
                return renewedAt != null; // the first registration finds no lease, and has nothing to distrust
            });
            if (lapsed) {
                LOG.warn("This instance's billing lease had run out (the process was paused or the database away for "
                        + "over {}); its balance slices are taken again from what the database says", instanceLease);
                reconcileOwed = true;
            }
            if (reconcileOwed || slices.inDoubt()) {
                settling.lock();
                try {
                    slices.reconcile();
                } finally {
                    settling.unlock();
                }
                reconcileOwed = false;
            }
            Instant previous = renewedAt;
            if (previous == null || Duration.between(previous, now).compareTo(trustedLease()) > 0) {
                healthySince = now;
            }
            renewedAt = now;
        } finally {
            renewal.unlock();
        }
    }

    /**
     * Whether this instance may take another whose lease ran out for stopped: its own lease stands, and it has
     * renewed without a gap for longer than a renewal interval (and a second), so every live instance has had the
     * chance to renew its own since the database answered again.
     */
    private boolean mayJudgeOthers(Instant now) {
        Instant renewed = renewedAt;
        Instant since = healthySince;
        return renewed != null && since != null && Duration.between(renewed, now).compareTo(trustedLease()) <= 0
                && Duration.between(since, now).toMillis() >= renewMillis() + 1000;
    }

    /**
     * Returns every unused slice, stops the writers (what is queued is still written) and ends this instance's lease,
     * so the others stop counting it at once: the traffic limits' share during a Redis outage is the limit divided
     * by the instances alive, and a stopped instance counted for its whole lease (15 s) made each of them admit less
     * and report other limits than they kept to (an audit).
     */
    @PreDestroy
    void close() {
        boolean registered;
        synchronized (registration) {
            registered = upkeep != null;
            if (registered) {
                upkeep.shutdownNow();
                quietly("returning balance slices", () -> slices.returnIdle(0));
            }
        }
        holds.close();
        settlements.close();
        holds.whileIdle(holdConnection::close);
        settlements.whileIdle(settlementConnection::close);
        if (registered) {
            quietly("ending this instance's lease", this::endLease);
        }
    }

    /** Marks this instance's lease as run out: what it still holds is a stopped instance's, released by the others. */
    private void endLease() {
        transactions.executeWrite(status -> {
            try (PreparedStatement end = status.getConnection().prepareStatement(
                    "UPDATE gateway_instance SET alive_until = ? WHERE id = ? AND alive_until > ?")) {
                Instant ended = clock.instant().minusMillis(1);
                end.setObject(1, utc(ended));
                end.setString(2, instanceId);
                end.setObject(3, utc(ended));
                end.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public long openHolds() {
        return transactions.executeRead(status -> {
            try (PreparedStatement count = status.getConnection().prepareStatement(
                    "SELECT count(*) FROM request_hold"); ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /**
     * Settles, at no charge, holds whose lease ran out and holds of instances that stopped renewing theirs; then
     * gives the slices of such instances (once none of their holds is left) back to their accounts' balances.
     */
    @Override
    public int releaseExpired(Instant now, int max) {
        registered(); // a sweeping instance is a live one: its lease is what lets it judge others'
        boolean judgeOthers = mayJudgeOthers(now);
        List<Map.Entry<String, String>> expired = transactions.executeRead(status -> {
            try (PreparedStatement query = status.getConnection().prepareStatement("SELECT h.request_id, k.key_hash "
                    + "FROM request_hold h JOIN api_key k ON k.id = h.api_key_id WHERE h.lease_until < ? "
                    + "OR (? AND h.instance_id IS NOT NULL AND h.instance_id <> ? AND NOT EXISTS (SELECT 1 FROM "
                    + "gateway_instance g WHERE g.id = h.instance_id AND g.alive_until >= ?)) "
                    + "ORDER BY h.lease_until LIMIT ?")) {
                query.setObject(1, utc(now));
                query.setBoolean(2, judgeOthers);
                query.setString(3, instanceId);
                query.setObject(4, utc(now));
                query.setInt(5, max);
                List<Map.Entry<String, String>> rows = new ArrayList<>();
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        rows.add(Map.entry(rs.getString(1), rs.getString(2)));
                    }
                }
                return rows;
            }
        });
        int released = 0;
        for (Map.Entry<String, String> row : expired) {
            boolean settled = settle(new Settlement(row.getKey(), new KeyHash(row.getValue()), "unknown", null,
                    TokenUsage.NONE, Usd.ZERO, "expired", now, null, null, false));
            released += settled ? 1 : 0;
        }
        if (expired.size() < max && judgeOthers) {
            releaseDeadSlices(now);
        }
        return released;
    }

    private int releaseDeadSlices(Instant now) {
        int given;
        try {
            given = transactions.executeWrite(status -> giveBackDeadSlices(status.getConnection(), now, null));
        } catch (Exception e) { // a database failure may come through the transaction callback unwrapped
            if (!brokenRule(e)) {
                throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
            }
            // One account's row refuses (its books do not add up): the others' slices still go back, one by one.
            given = 0;
            List<UUID> accounts = transactions.executeRead(status -> deadSliceAccounts(status.getConnection(), now));
            for (UUID account : accounts) {
                try {
                    given += transactions.executeWrite(status -> giveBackDeadSlices(status.getConnection(), now,
                            account));
                } catch (Exception refused) {
                    LOG.error("The balance slices of stopped instances for account {} cannot be given back: {}",
                            account, refused.getMessage());
                }
            }
        }
        transactions.executeWrite(status -> {
            try (PreparedStatement forget = status.getConnection().prepareStatement("DELETE FROM gateway_instance g "
                    + "WHERE g.id <> ? AND g.alive_until < ? AND NOT EXISTS (SELECT 1 FROM balance_slice s "
                    + "WHERE s.instance_id = g.id) AND NOT EXISTS (SELECT 1 FROM request_hold h "
                    + "WHERE h.instance_id = g.id)")) {
                forget.setString(1, instanceId);
                forget.setObject(2, utc(now));
                return forget.executeUpdate();
            }
        });
        if (given > 0) {
            LOG.warn("Gave the unused money of stopped instances' balance slices back to {} accounts", given);
        }
        return given;
    }

    /** The slices of stopped instances that no hold needs any more: ready to go back to their balances. */
    private static final String DEAD_SLICE = "s.instance_id <> ? AND NOT EXISTS (SELECT 1 FROM gateway_instance g "
            + "WHERE g.id = s.instance_id AND g.alive_until >= ?) AND NOT EXISTS (SELECT 1 FROM request_hold h "
            + "WHERE h.instance_id = s.instance_id AND h.account_id = s.account_id)";

    private List<UUID> deadSliceAccounts(Connection connection, Instant now) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT DISTINCT s.account_id FROM balance_slice s "
                + "WHERE " + DEAD_SLICE)) {
            query.setString(1, instanceId);
            query.setObject(2, utc(now));
            List<UUID> accounts = new ArrayList<>();
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    accounts.add(rs.getObject(1, UUID.class));
                }
            }
            return accounts;
        }
    }

    /**
     * Gives the dead slices back (of one account, or of all when {@code account} is null); answers how many held
     * money. An instance that stopped cleanly gave its money back already and leaves only empty rows, removed here
     * without a word.
     */
    private int giveBackDeadSlices(Connection connection, Instant now, UUID account) throws SQLException {
        Map<UUID, Long> back = new TreeMap<>();
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM balance_slice s WHERE " + DEAD_SLICE
                + (account == null ? "" : " AND s.account_id = ?") + " RETURNING account_id, amount_micros")) {
            delete.setString(1, instanceId);
            delete.setObject(2, utc(now));
            if (account != null) {
                delete.setObject(3, account);
            }
            try (ResultSet rs = delete.executeQuery()) {
                while (rs.next()) {
                    back.merge(rs.getObject(1, UUID.class), rs.getLong(2), Long::sum);
                }
            }
        }
        back.values().removeIf(amount -> amount == 0);
        try (PreparedStatement update = connection.prepareStatement("UPDATE account SET balance_micros = "
                + "balance_micros + ?, reserved_micros = reserved_micros - ? WHERE id = ?")) {
            for (Map.Entry<UUID, Long> entry : back.entrySet()) {
                update.setLong(1, entry.getValue());
                update.setLong(2, entry.getValue());
                update.setObject(3, entry.getKey());
                update.addBatch();
            }
            update.executeBatch();
        }
        return back.size();
    }

    // ---- helpers ----

    private static Array uuids(Connection connection, List<UUID> ids) throws SQLException {
        return connection.createArrayOf("uuid", ids.toArray());
    }

    /** A transaction that may throw {@link SQLException}. */
    @FunctionalInterface
    private interface Transaction<R> {
        R run() throws SQLException;
    }

    /** Runs a transaction again when PostgreSQL chose it as a deadlock victim or could not serialise it. */
    private static <R> R retried(Transaction<R> transaction) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return transaction.run();
            } catch (SQLException | RuntimeException e) {
                if (attempt >= ATTEMPTS || !retryable(e)) {
                    throw e;
                }
                LOG.debug("Billing transaction retried after {}", e.getMessage());
            }
        }
    }

    private static boolean retryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && ("40P01".equals(sql.getSQLState())
                    || "40001".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    /** Stops the lease renewals and slice returns as a frozen process would, writers still running (tests). */
    void pauseUpkeep() {
        synchronized (registration) {
            if (upkeep != null) {
                upkeep.shutdownNow();
            }
        }
    }

    /** Places the hold and then fails as when the database stalled after committing it (tests). */
    void placeButFail(HoldRequest hold) {
        if (placeHold(hold) != HoldOutcome.PLACED) {
            throw new IllegalStateException("not placed");
        }
        placingFailed(hold);
    }

    /** Holds the renewal lock for {@code busy}, as a renewal on a slow database would (tests). */
    void renewingFor(Duration busy, Runnable whileHeld) throws InterruptedException {
        renewal.lock();
        try {
            whileHeld.run();
            Thread.sleep(busy.toMillis());
        } finally {
            renewal.unlock();
        }
    }

    /** Withdraws now what {@link #placingFailed} withdraws after a few seconds (tests whose upkeep is paused). */
    void withdrawNow(String requestId) {
        withdraw(requestId);
    }

    /** Stops as a killed process would: no more lease renewals, nothing given back (tests of G3). */
    void abandon() {
        synchronized (registration) {
            if (upkeep != null) {
                upkeep.shutdownNow();
            }
        }
        holds.close();
        settlements.close();
        holds.whileIdle(holdConnection::close);
        settlements.whileIdle(settlementConnection::close);
    }

    /** The unused part of this instance's slice of an account (tests). */
    long unusedSlice(UUID account) {
        return slices.available(account);
    }

    /** How many accounts this instance keeps a slice for (tests). */
    int slicesKept() {
        return slices.size();
    }

    /** Gives every unused slice back to its account now, as the upkeep does when they are idle (tests). */
    void returnSlices() {
        returnSlicesIdleFor(Duration.ZERO);
    }

    /** Gives back the unused part of every slice idle for at least {@code idle}, as the upkeep does (tests). */
    void returnSlicesIdleFor(Duration idle) {
        leaseStanding();
        slices.returnIdle(idle.toNanos());
    }
}
