package dev.tollgate.adapter.out.persistence.common;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * One pooled connection kept by a {@link GroupCommit} for all its transactions: no
 * pool checkout, no connection reset and no transaction-manager bookkeeping per batch, only the batch's own
 * statements and its COMMIT. A connection that fails is closed (back to the pool, which tests it) and replaced on
 * the next transaction. Not thread-safe: used under the group commit's write lock only.
 */
public final class DedicatedConnection implements AutoCloseable {

    /** Work inside one transaction on the dedicated connection. */
    @FunctionalInterface
    public interface Work<R> {
        R run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final List<String> sessionSettings;
    private final int networkTimeoutMillis;
    private Connection connection;
    /** When the kept connection last did work (System.nanoTime). */
    private long lastUsedNanos;
    /**
     * A connection that rested longer than this is checked before use (one round trip): the pool tests the
     * connections it hands out, not one kept out of it, and a database that went away and came back while nothing
     * used it left it broken — the first request after the outage failed on it (an audit, 2026-11-29). Busy, it is
     * never checked; the pool's own bypass window is half this.
     */
    static final long CHECK_AFTER_IDLE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    /**
     * @param sessionSettings {@code SET} statements for this connection's session (for example a
     *                        {@code statement_timeout}, so a stalled database fails a batch instead of holding its
     *                        callers); {@code RESET ALL} undoes them before the connection goes back to the pool
     * @param networkTimeout  how long to wait for any answer from the server before the connection is dropped: a
     *                        statement timeout cannot fire on a server that is stalled or unreachable
     */
    public DedicatedConnection(DataSource dataSource, List<String> sessionSettings, Duration networkTimeout) {
        this.dataSource = dataSource;
        this.sessionSettings = List.copyOf(sessionSettings);
        this.networkTimeoutMillis = (int) networkTimeout.toMillis();
    }

    /** Runs {@code work} and commits; on any failure rolls back, drops the connection and rethrows. */
    public <R> R inTransaction(Work<R> work) throws SQLException {
        Connection current = open();
        try {
            R result = work.run(current);
            current.commit();
            lastUsedNanos = System.nanoTime();
            return result;
        } catch (SQLException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    /**
     * Runs {@code work} in auto-commit mode: each statement commits on its own, so a single statement costs one round
     * trip (no separate COMMIT). On any failure drops the connection and rethrows.
     */
    public <R> R autoCommitted(Work<R> work) throws SQLException {
        Connection current = open();
        try {
            current.setAutoCommit(true);
            R result = work.run(current);
            current.setAutoCommit(false);
            lastUsedNanos = System.nanoTime();
            return result;
        } catch (SQLException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    private Connection open() throws SQLException {
        if (connection != null && System.nanoTime() - lastUsedNanos > CHECK_AFTER_IDLE_NANOS && !alive(connection)) {
            discard();
        }
        if (connection == null) {
            Connection fresh = dataSource.getConnection();
            try {
                fresh.setNetworkTimeout(Runnable::run, networkTimeoutMillis); // the pool restores it on return
                fresh.setAutoCommit(false);
                try (var set = fresh.createStatement()) {
                    for (String setting : sessionSettings) {
                        set.execute(setting);
                    }
                }
                fresh.commit();
            } catch (SQLException e) {
                fresh.close();
                throw e;
            }
            connection = fresh;
            lastUsedNanos = System.nanoTime();
        }
        return connection;
    }

    private boolean alive(Connection kept) {
        try {
            return kept.isValid(Math.max(1, (networkTimeoutMillis + 999) / 1000));
        } catch (SQLException e) {
            return false;
        }
    }

    private void discard() {
        if (connection == null) {
            return;
        }
        try {
            if (connection.getAutoCommit()) {
                connection.setAutoCommit(false);
            }
            connection.rollback();
            try (var reset = connection.createStatement()) {
                reset.execute("RESET ALL");
            }
            connection.commit();
        } catch (SQLException ignored) {
            // the connection is broken; closing it hands it back to the pool, which tests and replaces it
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing more to do
        }
        connection = null;
    }

    @Override
    public void close() {
        discard();
    }
}
