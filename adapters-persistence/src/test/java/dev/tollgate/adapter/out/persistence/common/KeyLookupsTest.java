package dev.tollgate.adapter.out.persistence.common;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.apikey.JdbcApiKeyRepository;
import dev.tollgate.adapter.out.persistence.managementkey.JdbcManagementKeyRepository;
import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.domain.shared.KeyHash;
import io.micronaut.context.ApplicationContext;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The key lookups that open every request give up after their timeout when the database does not answer (here: a
 * table lock held by another session, which keeps the server from answering as a stalled one would), instead of
 * the driver's 10 s socket timeout — with a connection failure, which the HTTP adapter answers with 503 — and
 * work again once it answers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyLookupsTest {

    private ApplicationContext context;

    @BeforeAll
    void startContext() {
        Map<String, Object> properties = new HashMap<>(TestDatabase.properties());
        properties.put("tollgate.datasource.lookup-timeout", "500ms");
        context = ApplicationContext.builder().properties(properties).singletons(java.time.Clock.systemUTC())
                .start();
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    private Connection direct() throws SQLException {
        Map<String, Object> db = TestDatabase.properties();
        return DriverManager.getConnection((String) db.get("datasources.default.url"),
                (String) db.get("datasources.default.username"), (String) db.get("datasources.default.password"));
    }

    private static void assertGivesUpAfterTheTimeout(Supplier<?> lookup) {
        long start = System.nanoTime();
        RuntimeException failure = assertThrows(RuntimeException.class, lookup::get);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took >= 400 && took < 3_000, "gave up after about 500 ms, took " + took + " ms");
        // What the HTTP adapter answers with 503 (UnexpectedExceptionHandler.storeUnavailable): the driver's I/O
        // failure (08…), or — as here, when Micronaut Data resets the connection after it — the pool's closed one.
        boolean connectionFailure = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            connectionFailure |= t instanceof SQLException sql && (sql.getSQLState() != null
                    ? sql.getSQLState().startsWith("08") : "Connection is closed".equals(sql.getMessage()));
        }
        assertTrue(connectionFailure, "a connection failure, answered as 503: " + failure);
    }

    @Test
    void aStalledDatabaseFailsTheKeyLookupsAfterTheirTimeout() throws Exception {
        JdbcApiKeyRepository apiKeys = context.getBean(JdbcApiKeyRepository.class);
        JdbcManagementKeyRepository managementKeys = context.getBean(JdbcManagementKeyRepository.class);
        KeyHash hash = new KeyHash("ab".repeat(32));
        apiKeys.findByHash(hash); // the pool has a connection ready, as on a running gateway
        try (Connection locker = direct(); Statement lock = locker.createStatement()) {
            locker.setAutoCommit(false);
            lock.execute("LOCK TABLE api_key, management_key IN ACCESS EXCLUSIVE MODE");
            assertGivesUpAfterTheTimeout(() -> apiKeys.findByHash(hash));
            assertGivesUpAfterTheTimeout(() -> managementKeys.findByHash(hash));
            locker.rollback();
        }
        assertTrue(apiKeys.findByHash(hash).isEmpty(), "answers again once the database does");
        assertTrue(managementKeys.findByHash(hash).isEmpty());
    }
}
