package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reliability goal G9 with a database that answers, only slowly: another session locks the table holds go into,
 * so a request's hold waits (longer than the admission deadline of 300 ms set here, shorter than the hold's 1 s
 * statement timeout). The client gets 503 at the deadline — not when the database finally answers — and the hold,
 * placed after all, is settled at no charge: nothing went upstream, the balance is untouched, and the request is on
 * the ledger as failed. The same on the playground billed to the caller's key, whose requests hold like {@code /v1}'s.
 */
@MicronautTest(transactional = false)
class SlowDatabaseE2ETest extends GatewayE2ETest {

    private static final long DEADLINE_MILLIS = 300;
    private static final long LOCKED_MILLIS = 700;
    private static final String BODY = "{\"model\":\"tollgate/simulator-priced\",\"max_tokens\":5,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]";

    @Inject
    AccountRepository accounts;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        properties.put("tollgate.admission-timeout", DEADLINE_MILLIS + "ms");
        properties.put("tollgate.billing.refusal-wait", "100ms"); // must be shorter: see SettingChecks
        properties.put("tollgate.playground.user-billed", "true");
        return properties;
    }

    /** Holds of the key named {@code keyName} still open. */
    private static long openHolds(String keyName) {
        try (Connection c = database(); PreparedStatement q = c.prepareStatement("SELECT count(*) FROM request_hold h "
                + "JOIN api_key k ON k.id = h.api_key_id WHERE k.name = ?")) {
            q.setString(1, keyName);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitNoOpenHold(String keyName) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (openHolds(keyName) > 0) {
            assertTrue(System.nanoTime() < until, "a hold stayed open");
            Thread.sleep(20);
        }
    }

    /** The model API, as JSON and as a stream, and the playground billed to the caller's key. */
    @ParameterizedTest
    @CsvSource({"/v1/chat/completions,false", "/v1/chat/completions,true", "/v1/public/chat/completions,false"})
    void aHoldTheDatabaseIsSlowToPlaceIsAnswered503AtTheDeadlineAndChargedNothing(String route, boolean stream)
            throws Exception {
        Email email = newAccount(true);
        String keyName = "slow-db-" + java.util.UUID.randomUUID();
        String key = (String) createKey(managementKey(email, ManagementAccess.READ_WRITE),
                "{\"name\":\"" + keyName + "\"}").json().get("key");
        String body = BODY + (stream ? ",\"stream\":true}" : "}");
        // A first request takes the account's balance slice and caches the key: the next one needs the database
        // for its hold only.
        assertEquals(200, post(route, key, body).status());
        awaitNoOpenHold(keyName);
        long balance = accounts.findByEmail(email).orElseThrow().balance().micros();

        HttpResponse<String> reply;
        long waitedMillis;
        try (Connection locker = database(); Statement lock = locker.createStatement()) {
            locker.setAutoCommit(false);
            lock.execute("LOCK TABLE request_hold IN EXCLUSIVE MODE");
            long sent = System.nanoTime();
            CompletableFuture<HttpResponse<String>> answer = HttpClient.newHttpClient().sendAsync(
                    HttpRequest.newBuilder(URI.create(server.getURL() + route))
                            .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            reply = answer.get(LOCKED_MILLIS, TimeUnit.MILLISECONDS); // answered while the table is still locked
            waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            Thread.sleep(Math.max(0, LOCKED_MILLIS - waitedMillis));
            locker.commit(); // the database answers: the hold is placed after all
        }

        assertEquals(503, reply.statusCode(), reply.body());
        assertTrue(waitedMillis >= DEADLINE_MILLIS, "answered after " + waitedMillis + " ms");
        assertEquals("2", reply.headers().firstValue("Retry-After").orElse(null));
        assertTrue(reply.headers().firstValue("content-type").orElse("").startsWith("application/json"),
                "the error comes before any SSE");
        @SuppressWarnings("unchecked")
        Map<String, Object> error = (Map<String, Object>) json.readValue(reply.body(), Map.class).get("error");
        assertEquals("service_unavailable", error.get("code"));
        assertTrue(((String) error.get("message")).contains("nothing was sent upstream or charged"),
                error.toString());
        String requestId = reply.headers().firstValue("x-request-id").orElseThrow();

        awaitNoOpenHold(keyName);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (rowsOf("request_ledger", requestId) == 0) {
            assertTrue(System.nanoTime() < until, "the late hold was never settled");
            Thread.sleep(20);
        }
        try (Connection c = database(); PreparedStatement q = c.prepareStatement("SELECT status, provider, "
                + "cost_micros, prompt_tokens + completion_tokens FROM request_ledger WHERE request_id = ?")) {
            q.setString(1, requestId);
            try (ResultSet row = q.executeQuery()) {
                assertTrue(row.next());
                assertEquals("failed", row.getString(1));
                assertNull(row.getString(2), "no provider was called");
                assertEquals(0, row.getLong(3));
                assertEquals(0, row.getLong(4));
            }
        }
        assertEquals(balance, accounts.findByEmail(email).orElseThrow().balance().micros());
        assertEquals(200, post(route, key, body).status(), "served again once the database is");
    }
}
