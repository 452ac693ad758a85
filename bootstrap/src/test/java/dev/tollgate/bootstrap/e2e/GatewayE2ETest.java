package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.in.account.OpenAccountUseCase;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyUseCase;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.testing.MutableClock;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of the end-to-end tests: the whole gateway on a real PostgreSQL, driven over real HTTP with the JDK
 * client (no framework client that could paper over wire details).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GatewayE2ETest implements TestPropertyProvider {

    static final Pattern MILLIS_UTC = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Inject
    EmbeddedServer server;
    @Inject
    JsonMapper json;
    @Inject
    MutableClock clock;
    @Inject
    OpenAccountUseCase openAccount;
    @Inject
    CreateManagementKeyUseCase createManagementKey;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = new java.util.HashMap<>();
        TestDatabase.properties().forEach((k, v) -> properties.put(k, String.valueOf(v)));
        properties.put("micronaut.server.port", "-1"); // a free port, whatever else runs on this machine
        return properties;
    }

    /** Writes a model catalog to a temporary file and points the gateway at it ({@code tollgate.catalog}). */
    static void useCatalog(Map<String, String> properties, String yaml) {
        try {
            Path file = Files.createTempFile("e2e-catalog", ".yml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml);
            properties.put("tollgate.catalog", file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A connection of the test's own to the gateway's database. */
    static Connection database() throws SQLException {
        Map<String, Object> db = TestDatabase.properties();
        return DriverManager.getConnection((String) db.get("datasources.default.url"),
                (String) db.get("datasources.default.username"), (String) db.get("datasources.default.password"));
    }

    /** Rows of {@code table} (request_ledger, request_hold, playground_ledger) for one request id. */
    static long rowsOf(String table, String requestId) {
        try (Connection c = database();
                PreparedStatement q = c.prepareStatement(
                        "SELECT count(*) FROM " + table + " WHERE request_id = ?")) {
            q.setString(1, requestId);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An HTTP exchange as the client saw it. */
    record Reply(int status, HttpResponse<String> raw, Map<String, Object> json) {

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> data() {
            return (Map<String, Object>) json.get("data");
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> dataList() {
            return (List<Map<String, Object>>) json.get("data");
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> error() {
            return (Map<String, Object>) json.get("error");
        }
    }

    Reply send(String method, String path, String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return exchange(request.build());
    }

    Reply exchange(HttpRequest request) {
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            Map<String, Object> parsed = null;
            String contentType = response.headers().firstValue("content-type").orElse("");
            if (contentType.startsWith("application/json") && !response.body().isEmpty()) {
                parsed = json.readValue(response.body(), Argument.mapOf(String.class, Object.class));
            }
            return new Reply(response.statusCode(), response, parsed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    Reply get(String path, String key) {
        return send("GET", path, key, null);
    }

    Reply post(String path, String key, String body) {
        return send("POST", path, key, body);
    }

    Reply patch(String path, String key, String body) {
        return send("PATCH", path, key, body);
    }

    Reply delete(String path, String key) {
        return send("DELETE", path, key, null);
    }

    /** Opens an account and returns its e-mail. */
    Email newAccount(boolean verified) {
        Email email = new Email("e2e-" + UUID.randomUUID() + "@example.test");
        openAccount.open(new OpenAccountCommand(email, verified, Usd.ofMicros(10_000_000)));
        return email;
    }

    String managementKey(Email email, ManagementAccess access) {
        return managementKey(email, access, null);
    }

    String managementKey(Email email, ManagementAccess access, Instant expiresAt) {
        return createManagementKey.create(new CreateManagementKeyCommand(email,
                new KeyName("key-" + UUID.randomUUID()), access, expiresAt)).rawKey().reveal();
    }

    /** A read-write management key of a fresh verified account. */
    String readWriteKey() {
        return managementKey(newAccount(true), ManagementAccess.READ_WRITE);
    }

    /** A regular (gp-) key of the account, created through /api/v1/keys. */
    String regularKey(Email email) {
        return (String) createKey(managementKey(email, ManagementAccess.READ_WRITE), "{\"name\":\"e2e\"}").json()
                .get("key");
    }

    /** A regular (gp-) key of a fresh verified account. */
    String regularKey() {
        return regularKey(newAccount(true));
    }

    Reply createKey(String managementKey, String body) {
        Reply reply = post("/api/v1/keys", managementKey, body);
        assertEquals(201, reply.status(), reply.raw().body());
        return reply;
    }

    /** §7.1 envelope plus the integer code of sdk-contract.md. */
    static void assertManagementError(Reply reply, int status, String message) {
        assertEquals(status, reply.status(), reply.raw().body());
        assertTrue(reply.header("content-type").startsWith("application/json"), reply.header("content-type"));
        assertNotNull(reply.json(), "error body must be JSON");
        assertEquals(Boolean.FALSE, reply.json().get("success"));
        Map<String, Object> error = reply.error();
        assertEquals(status, error.get("statusCode"));
        assertEquals(status, error.get("code"));
        assertTrue(error.get("message") instanceof String m && !m.isBlank(), "message");
        if (message != null) {
            assertEquals(message, error.get("message"));
        }
        assertEquals(reply.header("x-request-id"), error.get("requestId"));
        assertTrue(MILLIS_UTC.matcher((String) error.get("timestamp")).matches(), "timestamp " + error);
        assertFalse(reply.raw().body().contains("Exception"), "no stack traces or class names: " + reply.raw().body());
    }

    static BigDecimal usd(Object jsonNumber) {
        return jsonNumber == null ? null : new BigDecimal(jsonNumber.toString());
    }

    static void assertUsd(String expected, Object actual) {
        assertNotNull(actual, "expected a USD number");
        assertEquals(0, new BigDecimal(expected).compareTo(usd(actual)), "expected " + expected + ", got " + actual);
    }
}
