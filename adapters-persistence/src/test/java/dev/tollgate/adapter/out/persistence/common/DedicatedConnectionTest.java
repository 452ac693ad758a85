package dev.tollgate.adapter.out.persistence.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The connection a group commit keeps out of the pool is checked after a rest: a database that dropped it while it
 * rested (a restart, a network cut) costs no request (an audit, 2026-11-29: the first request after an outage got a
 * 503, however long after the database came back).
 */
class DedicatedConnectionTest {

    private static final Map<String, Object> DB = TestDatabase.properties();

    private static Connection direct() throws java.sql.SQLException {
        return DriverManager.getConnection((String) DB.get("datasources.default.url"),
                (String) DB.get("datasources.default.username"), (String) DB.get("datasources.default.password"));
    }

    /** The driver's own data source: a plain connection each time (what the pool hands out, without its tests). */
    private static DataSource plain() {
        org.postgresql.ds.PGSimpleDataSource source = new org.postgresql.ds.PGSimpleDataSource();
        source.setUrl((String) DB.get("datasources.default.url"));
        source.setUser((String) DB.get("datasources.default.username"));
        source.setPassword((String) DB.get("datasources.default.password"));
        return source;
    }

    private static int backend(Connection connection) throws java.sql.SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aKeptConnectionTheDatabaseDroppedWhileItRestedIsReplacedBeforeUse() throws Exception {
        try (DedicatedConnection kept = new DedicatedConnection(plain(), List.of("SET statement_timeout = 2000"),
                Duration.ofSeconds(3))) {
            int first = kept.inTransaction(DedicatedConnectionTest::backend);
            try (Connection admin = direct(); Statement statement = admin.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(" + first + ")");
            }
            Thread.sleep(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(DedicatedConnection.CHECK_AFTER_IDLE_NANOS)
                    + 200);

            int second = kept.inTransaction(DedicatedConnectionTest::backend); // no exception: checked and replaced
            assertNotEquals(first, second, "a new connection");
            assertEquals(second, kept.inTransaction(DedicatedConnectionTest::backend), "and kept while busy");
            boolean same = kept.autoCommitted(c -> backend(c) == second);
            assertTrue(same, "auto-committed work uses it too");
        }
    }
}
