package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.domain.account.AccountId;
import io.micronaut.transaction.TransactionOperations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * This instance's slices of account balances (migration V3). A slice is money already moved out of the account's
 * {@code balance_micros} into this instance's {@code balance_slice} row, so holds against it need no database
 * round trip and cannot overspend: nothing outside the slice is touched. When a slice is short, one transaction
 * takes more from the balance — what the hold needs, plus a margin of at most a quarter of the remaining balance
 * and at most the configured slice size, so several instances sharing a small balance each get a small share. An
 * unused remainder goes back to the balance once the slice has been idle for a while, on shutdown, or (if this
 * instance dies) through another instance's sweeper.
 */
final class BalanceSlices {

    /**
     * The unused part of one account's slice on this instance. Guarded by its own monitor. An empty slice that was
     * idle is retired (taken out of the map, so accounts that stopped sending requests cost no memory); a caller
     * that got hold of it just before then takes a fresh one.
     */
    private static final class Slice {
        long available;
        /**
         * Taken by holds whose placing has not ended (their row may not be committed yet): a reconciliation leaves
         * it in the slice row, where such a hold's settlement will look for it. A slice with any is never retired.
         */
        long placing;
        long lastUsedNanos = System.nanoTime();
        boolean retired;
    }

    private final TransactionOperations<Connection> transactions;
    private final String instanceId;
    private final long targetMicros;
    private final Map<UUID, Slice> slices = new ConcurrentHashMap<>();

    /** Requests whose hold placing failed: a hold of theirs is not covered by the slice (JdbcBillingLedger). */
    private final Set<String> limbo;

    /** Whether a settlement of the account is on its way on this instance (its refund may cover a hold). */
    private final Predicate<UUID> settlementComing;

    /**
     * A move of money between a slice and its balance failed without the database saying whether it committed (a
     * connection reset during the commit): what this instance remembers of its slices may be more than their rows
     * hold, and a settlement would then drive the account's reserved money below zero and fail for good (a fault
     * audit: served requests never billed after a reset). Memory is kept at or below the rows instead — what such a
     * move took out of memory is not put back — and the slices are reconciled with the rows at the next lease
     * renewal ({@link #reconcile}), which gives back to the balance whatever the rows hold beyond the open holds.
     */
    private volatile boolean inDoubt;

    BalanceSlices(TransactionOperations<Connection> transactions, String instanceId, long targetMicros,
            Set<String> limbo, Predicate<UUID> settlementComing) {
        this.transactions = transactions;
        this.instanceId = instanceId;
        this.targetMicros = targetMicros;
        this.limbo = limbo;
        this.settlementComing = settlementComing;
    }

    /**
     * How long a hold the balance cannot cover waits, between tries, while other instances give back the unused
     * money of their slices of the account that it asked for, or a settlement of the account on its way here
     * brings back its refund (usually within milliseconds): about a second in all, and never past the hold's
     * {@code waitUntil}.
     */
    private static final long[] SHORTFALL_WAITS_MILLIS = {5, 10, 20, 50, 100, 150, 200, 250, 250};
    /** Whether waiting {@code millis} more would end past {@code until} ({@link System#nanoTime()}). */
    private static boolean pastAfter(long millis, long until) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis) - until > 0;
    }

    /** How often a hold tries the top-up again because a refund came back into the slice during the last one. */
    private static final int MAX_REFUND_TRIES = 2;

    /**
     * Takes {@code amount} from the account's slice, topping the slice up from the balance when it is short.
     * When the balance cannot cover it either but other instances' slices hold enough (unused, or held by requests
     * that may be about to settle), asks them for it back and tries again for about a second — as it does while a
     * settlement of the account (a request that just ended) is on its way here, or its refund came back during the
     * top-up — but not past {@code waitUntil} ({@link System#nanoTime()}). False when the account's money cannot
     * cover it; nothing is taken then, and this instance's own unused remainder has gone back to the balance (for
     * the other instances).
     * Taking does not count as use of the slice: {@link #used} does, once the hold is placed.
     */
    boolean take(AccountId account, long amount, long waitUntil) {
        int waits = 0;
        int refundTries = 0;
        while (true) {
            Slice slice = slices.computeIfAbsent(account.value(), a -> new Slice());
            boolean recalled;
            synchronized (slice) {
                if (slice.retired) {
                    continue;
                }
                if (slice.available >= amount) {
                    slice.available -= amount;
                    slice.placing += amount;
                    return true;
                }
                TopUp topUp;
                try {
                    topUp = topUp(account.value(), amount - slice.available, slice.available);
                } catch (RuntimeException e) {
                    // It may have committed a return of the remainder: memory keeps nothing the row may lack.
                    slice.available = 0;
                    inDoubt = true;
                    throw e;
                }
                if (topUp.granted() > 0) {
                    slice.available += topUp.granted() - amount;
                    slice.placing += amount;
                    return true;
                }
                slice.available -= topUp.returned();
                recalled = topUp.recalled();
            }
            if (!(recalled || settlementComing.test(account.value())) || waits == SHORTFALL_WAITS_MILLIS.length
                    || pastAfter(SHORTFALL_WAITS_MILLIS[waits], waitUntil)) {
                // A refund may have come back into the slice while the top-up waited for the account's lock (its
                // settlement then no longer counts as coming): with it, the balance may cover the hold now.
                synchronized (slice) {
                    if (slice.retired || slice.available == 0 || refundTries == MAX_REFUND_TRIES) {
                        return false;
                    }
                }
                refundTries++;
                continue;
            }
            try {
                Thread.sleep(SHORTFALL_WAITS_MILLIS[waits++]);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * A hold taken from the account's slice was placed: the slice is in use. A slice whose holds were all refused
     * (a key over its limit, retried in a loop) is idle, so its money goes back to the balance for other instances.
     */
    void used(AccountId account) {
        Slice slice = slices.get(account.value());
        if (slice != null) {
            synchronized (slice) {
                slice.lastUsedNanos = System.nanoTime();
            }
        }
    }

    /**
     * The placing of a hold that took {@code amount} ended — placed (its row committed) or not (its amount given
     * back first) — so a reconciliation need no longer keep it aside.
     */
    void placingEnded(AccountId account, long amount) {
        Slice slice = slices.get(account.value());
        if (slice != null && amount > 0) {
            synchronized (slice) {
                slice.placing = Math.max(0, slice.placing - amount);
            }
        }
    }

    /** Puts back what a hold did not use (its amount less its charge), or all of a hold that was not placed. */
    void giveBack(UUID account, long amount) {
        if (amount <= 0) {
            return;
        }
        while (true) {
            Slice slice = slices.computeIfAbsent(account, a -> new Slice());
            synchronized (slice) {
                if (!slice.retired) {
                    slice.available += amount;
                    return;
                }
            }
        }
    }

    /**
     * What a top-up did: {@code granted} moved from the balance into the slice (0: the balance was short); when short,
     * {@code returned} of the slice's unused remainder went back to the balance, and {@code recalled} says whether
     * other instances were asked for the unused money of their slices because it would cover the hold.
     */
    private record TopUp(long granted, long returned, boolean recalled) {
    }

    /**
     * Moves need (plus a margin) from the balance into this instance's slice in one transaction. When the balance is
     * short, gives the slice's unused {@code remainder} back instead, and asks the other instances for theirs (see
     * {@link #returnRecalled}) if the balance and their unused money together cover the need.
     */
    private TopUp topUp(UUID account, long need, long remainder) {
        return transactions.executeWrite(status -> {
            Connection connection = status.getConnection();
            long balance;
            try (PreparedStatement lock = connection.prepareStatement(
                    "SELECT balance_micros FROM account WHERE id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, account);
                try (ResultSet rs = lock.executeQuery()) {
                    if (!rs.next()) {
                        return new TopUp(0, 0, false);
                    }
                    balance = rs.getLong(1);
                }
            }
            if (balance >= need) {
                long amount = Math.min(balance, Math.max(need, Math.min(targetMicros, balance / 4)));
                move(connection, account, amount);
                return new TopUp(amount, 0, false);
            }
            if (remainder > 0) {
                move(connection, account, -remainder);
            }
            boolean recall = otherSlices(connection, account) >= need - balance;
            if (recall) {
                recall(connection, account);
            }
            return new TopUp(0, remainder, recall);
        });
    }

    /**
     * The money other instances' slices of the account hold, their open holds included: what they could give back
     * at once (their unused part) or once those holds settle (their refunds; a request that just ended elsewhere
     * has not settled yet when its client sends the next one). Each try of the waiting hold recalls again, so a
     * refund that lands after the first give-back comes back too.
     */
    private long otherSlices(Connection connection, UUID account) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT coalesce(sum(amount_micros), 0) FROM "
                + "balance_slice WHERE account_id = ? AND instance_id <> ?")) {
            query.setObject(1, account);
            query.setString(2, instanceId);
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Marks the other instances' slices of the account as wanted back. */
    private void recall(Connection connection, UUID account) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE balance_slice SET recalled = true "
                + "WHERE account_id = ? AND instance_id <> ? AND amount_micros > 0 AND NOT recalled")) {
            update.setObject(1, account);
            update.setString(2, instanceId);
            update.executeUpdate();
        }
    }

    /** From the balance into this instance's slice ({@code amount} > 0) or back ({@code amount} < 0). */
    private void move(Connection connection, UUID account, long amount) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE account SET "
                + "balance_micros = balance_micros - ?, reserved_micros = reserved_micros + ? WHERE id = ?")) {
            update.setLong(1, amount);
            update.setLong(2, amount);
            update.setObject(3, account);
            update.executeUpdate();
        }
        // A CHECK constraint sees the row an INSERT proposes before ON CONFLICT does: a return is an UPDATE.
        String sql = amount > 0
                ? "INSERT INTO balance_slice (account_id, instance_id, amount_micros) VALUES (?, ?, ?) "
                        + "ON CONFLICT (account_id, instance_id) "
                        + "DO UPDATE SET amount_micros = balance_slice.amount_micros + EXCLUDED.amount_micros"
                : "UPDATE balance_slice SET amount_micros = amount_micros - ? WHERE account_id = ? AND instance_id = ?";
        try (PreparedStatement slice = connection.prepareStatement(sql)) {
            if (amount > 0) {
                slice.setObject(1, account);
                slice.setString(2, instanceId);
                slice.setLong(3, amount);
            } else {
                slice.setLong(1, -amount);
                slice.setObject(2, account);
                slice.setString(3, instanceId);
            }
            if (slice.executeUpdate() != 1) {
                throw new IllegalStateException("no balance slice of account " + account + " on this instance");
            }
        }
    }

    /**
     * Gives the unused part of every slice idle for at least {@code idleNanos} back to its account's balance
     * (0: every slice). A slice that cannot be given back (database unavailable) stays in use.
     */
    void returnIdle(long idleNanos) {
        long now = System.nanoTime();
        RuntimeException failure = null;
        for (Map.Entry<UUID, Slice> entry : slices.entrySet()) {
            Slice slice = entry.getValue();
            long amount;
            synchronized (slice) {
                if (now - slice.lastUsedNanos < idleNanos) {
                    continue;
                }
                if (slice.available == 0 && slice.placing == 0) {
                    slice.retired = true;
                    slices.remove(entry.getKey(), slice);
                    continue;
                }
                amount = slice.available;
                slice.available = 0;
            }
            try {
                transactions.executeWrite(status -> {
                    move(status.getConnection(), entry.getKey(), -amount);
                    return null;
                });
            } catch (Exception e) {
                // It may have committed: the amount stays out of memory, and the next reconciliation gives back to
                // the balance what the row still holds of it. The other accounts' slices still go back now.
                inDoubt = true;
                if (failure == null) {
                    failure = e instanceof RuntimeException runtime ? runtime
                            : new IllegalStateException(e.getMessage(), e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Gives back the unused part of every slice of this instance that another instance recalled (it could not
     * cover a hold without it), idle or not, and clears the recall. Holds in flight keep what they took.
     */
    void returnRecalled() {
        List<UUID> recalled = sliceAccounts("AND recalled");
        for (UUID account : recalled) {
            Slice slice = slices.get(account);
            long amount = 0;
            if (slice != null) {
                synchronized (slice) {
                    amount = slice.available;
                    slice.available = 0;
                }
            }
            long returned = amount;
            try {
                transactions.executeWrite(status -> {
                    // The account row before the slice row, as a settlement locks them: the other order deadlocked
                    // with this instance's own settlement of the account (PostgreSQL broke it after a second).
                    if (returned > 0) {
                        move(status.getConnection(), account, -returned);
                    }
                    try (PreparedStatement clear = status.getConnection().prepareStatement("UPDATE balance_slice "
                            + "SET recalled = false WHERE account_id = ? AND instance_id = ?")) {
                        clear.setObject(1, account);
                        clear.setString(2, instanceId);
                        clear.executeUpdate();
                    }
                    return null;
                });
            } catch (RuntimeException e) {
                inDoubt = true; // as in returnIdle: not put back into memory, the rows are read again
                throw e;
            }
        }
    }

    /** The accounts of this instance's slice rows, those matching {@code condition} (SQL after the instance). */
    private List<UUID> sliceAccounts(String condition) {
        return transactions.executeRead(status -> {
            List<UUID> ids = new ArrayList<>();
            try (PreparedStatement query = status.getConnection().prepareStatement(
                    "SELECT account_id FROM balance_slice WHERE instance_id = ? " + condition)) {
                query.setString(1, instanceId);
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return ids;
        });
    }

    /**
     * After this instance's lease lapsed (it was frozen, or cut off from the database, for longer than the lease):
     * another instance may have released its holds and given its slices back, so what it remembers of them is
     * not to be trusted. Each slice it knows, and each its database rows name, is set to what the database says
     * is left of it beyond the holds still open there — the excess goes back to the balance — under the slice's own
     * lock, so no hold is taken from a remembered slice meanwhile.
     */
    void reconcile() {
        inDoubt = false; // a move failing from here on sets it again
        try {
            reconcileAll();
        } catch (RuntimeException e) {
            inDoubt = true;
            throw e;
        }
    }

    /** Whether a move of money may have committed unseen, so the slices are to be reconciled with their rows. */
    boolean inDoubt() {
        return inDoubt;
    }

    /** A settlement failed without the database saying whether it committed: its refund may be in the row only. */
    void doubt() {
        inDoubt = true;
    }

    private void reconcileAll() {
        List<UUID> accounts = sliceAccounts("");
        Set<UUID> all = new LinkedHashSet<>(slices.keySet());
        all.addAll(accounts);
        for (UUID account : all) {
            while (true) {
                Slice slice = slices.computeIfAbsent(account, a -> new Slice());
                synchronized (slice) {
                    if (slice.retired) {
                        continue;
                    }
                    long placing = slice.placing;
                    slice.available = transactions.executeWrite(status -> settleSlice(status.getConnection(),
                            account, placing));
                    break;
                }
            }
        }
    }

    /**
     * Gives back to the balance what the account's slice row holds beyond this instance's open holds of it and
     * what holds still being placed took ({@code placing}: their rows may commit after this looks), and answers
     * what is then left to take from memory: nothing (the holds' leftovers come back as they settle, or their whole
     * amount if their placing fails).
     */
    private long settleSlice(Connection connection, UUID account, long placing) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT 1 FROM account WHERE id = ? FOR NO KEY UPDATE")) {
            lock.setObject(1, account);
            lock.executeQuery().close();
        }
        long amount;
        // Holds in limbo are left out: their amount went back to the slice when their placing failed, so the slice
        // does not cover them (counting them kept their amount in the slice row for good after the withdrawal).
        try (PreparedStatement query = connection.prepareStatement("SELECT s.amount_micros, COALESCE((SELECT "
                + "sum(h.amount_micros) FROM request_hold h WHERE h.instance_id = s.instance_id AND h.account_id = "
                + "s.account_id AND NOT h.request_id = ANY (?)), 0) FROM balance_slice s WHERE s.account_id = ? "
                + "AND s.instance_id = ? FOR UPDATE")) {
            query.setArray(1, connection.createArrayOf("text", limbo.toArray()));
            query.setObject(2, account);
            query.setString(3, instanceId);
            try (ResultSet rs = query.executeQuery()) {
                if (!rs.next()) {
                    return 0L; // given back already
                }
                amount = rs.getLong(1) - rs.getLong(2) - placing;
            }
        }
        if (amount > 0) {
            move(connection, account, -amount);
        }
        return 0L;
    }

    /** How many accounts this instance keeps a slice for (tests). */
    int size() {
        return slices.size();
    }

    /** The unused part of this instance's slice of an account (for tests and metrics). */
    long available(UUID account) {
        Slice slice = slices.get(account);
        if (slice == null) {
            return 0;
        }
        synchronized (slice) {
            return slice.available;
        }
    }
}
