package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        // the database died under a pooled connection: the pool closed it, and its next use says only that (seen
        // as Micronaut Data's "Could not set JDBC Connection [...ClosedConnection] read-only: Connection is closed")
        assertTrue(UnexpectedExceptionHandler.storeUnavailable(new IllegalStateException(
                "Could not set JDBC Connection read-only: Connection is closed",
                new SQLException("Connection is closed"))));
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

    @Test
    @SuppressWarnings("unchecked")
    void anOutageAnswers503WithRetryAfterInTheEnvelopeOfEachSurface() {
        UnexpectedExceptionHandler handler = new UnexpectedExceptionHandler(java.time.Clock.systemUTC());
        RuntimeException outage = new IllegalStateException(
                new SQLTransientConnectionException("Connection is not available, request timed out after 1000ms"));

        io.micronaut.http.HttpResponse<?> model = handler.handle(
                io.micronaut.http.HttpRequest.POST("/v1/chat/completions", ""), outage);
        assertEquals(503, model.getStatus().getCode());
        assertEquals("2", model.getHeaders().get("Retry-After"));
        java.util.Map<String, Object> error = (java.util.Map<String, Object>)
                ((java.util.Map<String, Object>) model.getBody().orElseThrow()).get("error");
        assertEquals("service_unavailable", error.get("code"));
        assertEquals("api_error", error.get("type"));
        assertFalse(String.valueOf(error.get("message")).contains("Connection is not available"),
                "no driver or pool detail reaches the client");

        io.micronaut.http.HttpResponse<?> control = handler.handle(
                io.micronaut.http.HttpRequest.GET("/api/v1/keys"), outage);
        assertEquals(503, control.getStatus().getCode());
        java.util.Map<String, Object> body = (java.util.Map<String, Object>) control.getBody().orElseThrow();
        assertEquals(false, body.get("success"));
        assertEquals(503, ((java.util.Map<String, Object>) body.get("error")).get("statusCode"));

        io.micronaut.http.HttpResponse<?> bug = handler.handle(
                io.micronaut.http.HttpRequest.GET("/v1/models"), new IllegalStateException("bug"));
        assertEquals(500, bug.getStatus().getCode());
    }
}
