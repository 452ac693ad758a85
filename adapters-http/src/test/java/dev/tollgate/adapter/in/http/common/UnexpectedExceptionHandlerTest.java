package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class UnexpectedExceptionHandlerTest {

    @Test
    void anUnreachableOrStalledDatabaseIsAnOutageNotABug() {
        // the pool's checkout timeout (HikariCP), wrapped the way a group commit or a repository wraps it
        assertTrue(UnexpectedExceptionHandler.storeUnavailable(new IllegalStateException("batch failed",
                new SQLTransientConnectionException("Connection is not available, request timed out after 30000ms"))));
        // connection refused / lost: SQL state class 08
        assertTrue(UnexpectedExceptionHandler.storeUnavailable(new RuntimeException(
                new SQLException("Connection to 127.0.0.1:5432 refused", "08001"))));
        // statement_timeout: 57014 query_canceled
        assertTrue(UnexpectedExceptionHandler.storeUnavailable(new IllegalStateException(
                new SQLException("canceling statement due to statement timeout", "57014"))));
        // too many connections: 53300
        assertTrue(UnexpectedExceptionHandler.storeUnavailable(new SQLExceptionWrapper(
                new SQLException("sorry, too many clients already", "53300"))));
    }

    @Test
    void otherFailuresStayInternalErrors() {
        assertFalse(UnexpectedExceptionHandler.storeUnavailable(new IllegalStateException("bug")));
        assertFalse(UnexpectedExceptionHandler.storeUnavailable(new RuntimeException(
                new SQLException("duplicate key value violates unique constraint", "23505"))));
        assertFalse(UnexpectedExceptionHandler.storeUnavailable(new RuntimeException(
                new SQLException("no state"))));
    }

    private static final class SQLExceptionWrapper extends RuntimeException {
        SQLExceptionWrapper(SQLException cause) {
            super(cause);
        }
    }
}
