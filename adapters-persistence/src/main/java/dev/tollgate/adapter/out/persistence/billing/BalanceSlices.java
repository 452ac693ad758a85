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
        long lastUsedNanos = System.nanoTime();
        boolean retired;
    }

    private final TransactionOperations<Connection> transactions;
    private final String instanceId;
    private final long targetMicros;
    private final Map<UUID, Slice> slices = new ConcurrentHashMap<>();

    BalanceSlices(TransactionOperations<Connection> transactions, String instanceId, long targetMicros) {
        this.transactions = transactions;
        this.instanceId = instanceId;
        this.targetMicros = targetMicros;
    }

    /**
     * Takes {@code amount} from the account's slice, topping the slice up from the balance when it is short.
     * False when the balance cannot cover it; nothing changes then.
     */
    boolean take(AccountId account, long amount) {
        while (true) {
            Slice slice = slices.computeIfAbsent(account.value(), a -> new Slice());
            synchronized (slice) {
                if (slice.retired) {
                    continue;
                }
                slice.lastUsedNanos = System.nanoTime();
                if (slice.available >= amount) {
                    slice.available -= amount;
                    return true;
                }
                long granted = grant(account.value(), amount - slice.available);
                if (granted == 0) {
                    return false;
                }
                slice.available += granted - amount;
                return true;
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

    /** Moves need (plus a margin) from the balance into this instance's slice in one transaction; 0 if short. */
    private long grant(UUID account, long need) {
        return transactions.executeWrite(status -> {
            Connection connection = status.getConnection();
            long balance;
            try (PreparedStatement lock = connection.prepareStatement(
                    "SELECT balance_micros FROM account WHERE id = ? FOR NO KEY UPDATE")) {
                lock.setObject(1, account);
                try (ResultSet rs = lock.executeQuery()) {
                    if (!rs.next()) {
                        return 0L;
                    }
                    balance = rs.getLong(1);
                }
            }
            if (balance < need) {
                return 0L;
            }
            long amount = Math.min(balance, Math.max(need, Math.min(targetMicros, balance / 4)));
            move(connection, account, amount);
            return amount;
        });
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
                if (slice.available == 0) {
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
                // Kept for the next run; the other accounts' slices still go back now.
                giveBack(entry.getKey(), amount);
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
     * After this instance's lease lapsed (it was frozen, or cut off from the database, for longer than the lease):
     * another instance may have released its holds and given its slices back, so what it remembers of them is
     * not to be trusted. Each slice it knows, and each its database rows name, is set to what the database says
     * is left of it beyond the holds still open there — the excess goes back to the balance — under the slice's own
     * lock, so no hold is taken from a remembered slice meanwhile.
     */
    void reconcile() {
        List<UUID> accounts = transactions.executeRead(status -> {
            List<UUID> ids = new ArrayList<>();
            try (PreparedStatement query = status.getConnection().prepareStatement(
                    "SELECT account_id FROM balance_slice WHERE instance_id = ?")) {
                query.setString(1, instanceId);
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return ids;
        });
        Set<UUID> all = new LinkedHashSet<>(slices.keySet());
        all.addAll(accounts);
        for (UUID account : all) {
            while (true) {
                Slice slice = slices.computeIfAbsent(account, a -> new Slice());
                synchronized (slice) {
                    if (slice.retired) {
                        continue;
                    }
                    slice.available = transactions.executeWrite(status -> settleSlice(status.getConnection(),
                            account));
                    break;
                }
            }
        }
    }

    /**
     * Gives back to the balance what the account's slice row holds beyond this instance's open holds of it, and
     * answers what is then left to take from memory: nothing (the open holds' leftovers come back as they settle).
     */
    private long settleSlice(Connection connection, UUID account) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT 1 FROM account WHERE id = ? FOR NO KEY UPDATE")) {
            lock.setObject(1, account);
            lock.executeQuery().close();
        }
        long amount;
        try (PreparedStatement query = connection.prepareStatement("SELECT s.amount_micros, COALESCE((SELECT "
                + "sum(h.amount_micros) FROM request_hold h WHERE h.instance_id = s.instance_id AND h.account_id = "
                + "s.account_id), 0) FROM balance_slice s WHERE s.account_id = ? AND s.instance_id = ? FOR UPDATE")) {
            query.setObject(1, account);
            query.setString(2, instanceId);
            try (ResultSet rs = query.executeQuery()) {
                if (!rs.next()) {
                    return 0L; // given back already
                }
                amount = rs.getLong(1) - rs.getLong(2);
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
