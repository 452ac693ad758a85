package dev.tollgate.application.port.out;

import java.util.function.Supplier;

/** Out port: run several repository calls as one all-or-nothing unit. */
public interface TransactionRunner {

    <T> T inTransaction(Supplier<T> work);
}
