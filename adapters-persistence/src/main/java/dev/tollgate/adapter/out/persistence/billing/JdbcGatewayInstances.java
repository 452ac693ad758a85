package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.adapter.out.persistence.quota.AloneInstances;
import io.micronaut.context.annotation.Value;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: how many gateway instances are alive — those whose lease in {@code gateway_instance} has
 * not run out (every instance renews its own, see {@link JdbcBillingLedger}) — and which of the others decide
 * traffic limits alone ({@code limits_alone}, {@link AloneInstances}). Read by the caller's schedule, kept between
 * reads, so asking costs nothing on the request path; the last known answers stay while the database does not
 * answer. Leases in {@code limits_alone} are compared with the database's clock, which every instance shares.
 */
@Singleton
public class JdbcGatewayInstances implements IntSupplier, AloneInstances {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcGatewayInstances.class);

    private final TransactionOperations<Connection> transactions;
    private final String self = "limits-" + UUID.randomUUID();
    private final long aloneLeaseMillis;
    private volatile int live = 1;
    private volatile boolean othersAlone;
    private volatile boolean aloneHere;
    /** Whether this instance's row in {@code limits_alone} was last written (true) or deleted (false). */
    private boolean aloneWritten;
    private final Object announcerLock = new Object();
    private ExecutorService announcer;

    JdbcGatewayInstances(TransactionOperations<Connection> transactions,
            @Value("${tollgate.limits.failover.alone-lease:10s}") Duration aloneLease) {
        this.transactions = transactions;
        this.aloneLeaseMillis = aloneLease.toMillis();
    }

    /**
     * Writes whether this instance decides alone (renewing its lease while it does), then reads the live
     * instances again (at least 1: this one) and whether another one decides alone.
     */
    public synchronized void refresh() {
        boolean alone = aloneHere;
        try {
            if (alone || aloneWritten) {
                transactions.executeWrite(status -> {
                    writeAlone(status.getConnection(), alone);
                    read(status.getConnection());
                    return null;
                });
            } else {
                transactions.executeRead(status -> {
                    read(status.getConnection());
                    return null;
                });
            }
            aloneWritten = alone;
        } catch (Exception e) { // a database failure may come through the transaction callback unwrapped
            LOG.debug("Reading the live gateway instances failed; keeping {} ({}): {}", live,
                    othersAlone ? "another decides limits alone" : "none decides limits alone", e.getMessage());
        }
    }

    private void writeAlone(Connection connection, boolean alone) throws SQLException {
        if (alone) {
            try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO limits_alone (instance_id, "
                    + "alive_until) VALUES (?, now() + ? * interval '1 millisecond') ON CONFLICT (instance_id) "
                    + "DO UPDATE SET alive_until = EXCLUDED.alive_until")) {
                upsert.setString(1, self);
                upsert.setLong(2, aloneLeaseMillis);
                upsert.executeUpdate();
            }
        }
        // Its own row when it shares again, and any row that ran out (an instance that stopped while alone).
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM limits_alone WHERE (instance_id = ? AND NOT ?) OR alive_until < now()")) {
            delete.setString(1, self);
            delete.setBoolean(2, alone);
            delete.executeUpdate();
        }
    }

    private void read(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT (SELECT count(*) FROM gateway_instance WHERE alive_until >= now()), "
                        + "EXISTS (SELECT 1 FROM limits_alone WHERE alive_until >= now() AND instance_id <> ?)")) {
            query.setString(1, self);
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                live = Math.max(1, rs.getInt(1));
                othersAlone = rs.getBoolean(2);
            }
        }
    }

    @Override
    public int getAsInt() {
        return live;
    }

    @Override
    public boolean othersAlone() {
        return othersAlone;
    }

    /** Written at once in the background, and renewed by every {@link #refresh()} while alone. */
    @Override
    public void alone(boolean alone) {
        aloneHere = alone;
        announcer().execute(this::refresh);
    }

    /** Not this object's lock: a caller on the request path must not wait for a refresh that waits for the database. */
    private ExecutorService announcer() {
        synchronized (announcerLock) {
            if (announcer == null) {
                announcer = Executors.newSingleThreadExecutor(r -> {
                    Thread thread = new Thread(r, "limits-alone");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            return announcer;
        }
    }

    /** A stopping instance no longer decides anything: its row goes (or runs out if the database is away). */
    @PreDestroy
    synchronized void close() {
        synchronized (announcerLock) {
            if (announcer != null) {
                announcer.shutdownNow();
            }
        }
        aloneHere = false;
        if (aloneWritten) {
            refresh();
        }
    }
}
