package dev.tollgate.adapter.out.persistence.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Persistence adapter support: the key lookups that open every request (a {@code gp-} or {@code gpm-} key by its
 * hash) wait at most {@code tollgate.datasource.lookup-timeout} (2 s) for the database, like the hold does, rather
 * than the driver's socket timeout (10 s): a database that stalls without closing its connections makes requests
 * fail with 503 in about that time instead of holding them. The timeout is the connection's network timeout for
 * the lookup's transaction; the pool puts the connection's own back when it is returned.
 */
@Singleton
public class KeyLookups {

    private final TransactionOperations<Connection> transactions;
    private final int timeoutMillis;

    KeyLookups(TransactionOperations<Connection> transactions,
            @Value("${tollgate.datasource.lookup-timeout:2s}") Duration timeout) {
        if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("TOLLGATE_DATASOURCE_LOOKUP_TIMEOUT must be a positive duration, was "
                    + timeout);
        }
        this.transactions = transactions;
        this.timeoutMillis = (int) timeout.toMillis();
    }

    /**
     * Runs {@code lookup} (repository reads) in a read transaction whose connection waits at most the timeout —
     * unless it is part of a transaction already (a use case's), whose later statements keep their own timeouts.
     */
    public <T> T bounded(Supplier<T> lookup) {
        if (transactions.findTransactionStatus().isPresent()) {
            return lookup.get();
        }
        return transactions.executeRead(status -> {
            Connection connection = status.getConnection();
            if (connection.getNetworkTimeout() == 0 || connection.getNetworkTimeout() > timeoutMillis) {
                connection.setNetworkTimeout(Runnable::run, timeoutMillis);
            }
            return lookup.get();
        });
    }
}
