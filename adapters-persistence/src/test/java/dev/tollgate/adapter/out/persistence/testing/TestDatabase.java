package dev.tollgate.adapter.out.persistence.testing;

import dev.tollgate.adapter.out.persistence.embedded.EmbeddedPostgresDatastore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Test fixture: one real PostgreSQL per test JVM. By default an embedded PostgreSQL in a throw-away directory
 * (the same server the gateway embeds); with {@code TOLLGATE_TEST_DATABASE_URL} (a JDBC URL of a server's
 * maintenance database, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}) a fresh database
 * on that server instead. Never H2, never a mock.
 */
public final class TestDatabase {

    private static Map<String, Object> properties;

    private TestDatabase() {
    }

    /** Micronaut properties pointing the default datasource (and Flyway) at the test database. */
    public static synchronized Map<String, Object> properties() {
        if (properties == null) {
            properties = start();
        }
        return new HashMap<>(properties);
    }

    private static Map<String, Object> start() {
        String external = System.getenv("TOLLGATE_TEST_DATABASE_URL");
        String url;
        String user;
        String password = "";
        if (external != null && !external.isBlank()) {
            String name = "tollgate_test_" + UUID.randomUUID().toString().replace("-", "");
            try (Connection connection = DriverManager.getConnection(external);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE " + name);
                user = connection.getMetaData().getUserName();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create a test database via " + external, e);
            }
            url = external.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
        } else {
            try {
                Path dir = Files.createTempDirectory("tollgate-test-pg");
                EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dir, false);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        datastore.close();
                    } catch (IOException ignored) {
                        // the JVM is exiting; the directory is temporary
                    }
                }));
                url = datastore.jdbcUrl();
                user = datastore.username();
                password = datastore.password();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded test PostgreSQL", e);
            }
        }
        Map<String, Object> props = new HashMap<>();
        props.put("datasources.default.url", url);
        props.put("datasources.default.username", user);
        props.put("datasources.default.password", password);
        props.put("datasources.default.driver-class-name", "org.postgresql.Driver");
        props.put("datasources.default.dialect", "POSTGRES");
        props.put("flyway.datasources.default.enabled", true);
        return props;
    }
}
