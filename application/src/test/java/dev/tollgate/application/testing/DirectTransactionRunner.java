package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.TransactionRunner;
import java.util.function.Supplier;

/** Fake of {@link TransactionRunner} for in-memory stores: one unit of work at a time. */
public final class DirectTransactionRunner implements TransactionRunner {

    @Override
    public synchronized <T> T inTransaction(Supplier<T> work) {
        return work.get();
    }
}
