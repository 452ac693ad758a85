package dev.tollgate.adapter.out.persistence.common;

import dev.tollgate.application.port.out.TransactionRunner;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.util.function.Supplier;

/** Persistence adapter: {@link TransactionRunner} as one PostgreSQL transaction (joins an enclosing one). */
@Singleton
public class JdbcTransactionRunner implements TransactionRunner {

    private final TransactionOperations<Connection> transactions;

    JdbcTransactionRunner(TransactionOperations<Connection> transactions) {
        this.transactions = transactions;
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return transactions.executeWrite(status -> work.get());
    }
}
