package dev.tollgate.adapter.out.persistence.billing;

import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: how many gateway instances are alive — those whose lease in {@code gateway_instance} has
 * not run out (every instance renews its own, see {@link JdbcBillingLedger}). Read by the caller's schedule,
 * kept between reads, so asking costs nothing on the request path; the last known count stays while the database
 * does not answer.
 */
@Singleton
public class JdbcGatewayInstances implements IntSupplier {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcGatewayInstances.class);

    private final TransactionOperations<Connection> transactions;
    private volatile int live = 1;

    JdbcGatewayInstances(TransactionOperations<Connection> transactions) {
        this.transactions = transactions;
    }

    /** Counts the live instances again (at least 1: this one). */
    public void refresh() {
        try {
            live = Math.max(1, transactions.executeRead(status -> count(status.getConnection())));
        } catch (RuntimeException e) {
            LOG.debug("Counting live gateway instances failed; keeping {}: {}", live, e.getMessage());
        }
    }

    private static int count(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT count(*) FROM gateway_instance WHERE alive_until >= now()");
                ResultSet rs = query.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public int getAsInt() {
        return live;
    }
}
