package dev.tollgate.adapter.out.persistence.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import io.micronaut.context.ApplicationContext;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The first fingerprint recorded is the one every later process reads, however many start at once. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcKeyHashingRecordTest {

    private ApplicationContext context;
    private JdbcKeyHashingRecord record;

    @BeforeAll
    void startContext() {
        context = ApplicationContext.builder().properties(TestDatabase.properties())
                .singletons(java.time.Clock.systemUTC()).start();
        record = context.getBean(JdbcKeyHashingRecord.class);
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    @BeforeEach
    void forgetTheRecord() throws Exception {
        java.util.Map<String, Object> db = TestDatabase.properties();
        try (Connection connection = java.sql.DriverManager.getConnection((String) db.get("datasources.default.url"),
                (String) db.get("datasources.default.username"), (String) db.get("datasources.default.password"));
                java.sql.Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM deployment_setting");
        }
    }

    @Test
    void theFirstFingerprintIsKeptAndAnsweredToEveryLaterOne() {
        assertEquals("first", record.recordOrRead("first"));
        assertEquals("first", record.recordOrRead("second"), "another pepper reads the recorded one");
        assertEquals("first", record.recordOrRead("first"));
    }

    @Test
    void processesStartingTogetherAllReadTheSameOne() throws Exception {
        ExecutorService starting = Executors.newFixedThreadPool(8);
        try {
            List<Callable<String>> processes = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String mine = "fingerprint-" + i;
                processes.add(() -> record.recordOrRead(mine));
            }
            java.util.Set<String> answers = new java.util.HashSet<>();
            for (Future<String> answer : starting.invokeAll(processes)) {
                answers.add(answer.get());
            }
            assertEquals(1, answers.size(), "one record: " + answers);
        } finally {
            starting.shutdownNow();
        }
    }
}
