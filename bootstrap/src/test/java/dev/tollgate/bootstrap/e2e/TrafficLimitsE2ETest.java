package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * §8.1 over HTTP, with small limits so they are reached quickly: 429 {@code rate_limit_exceeded} with an accurate
 * {@code Retry-After}, the {@code x-ratelimit-*} headers on every /v1 answer, nothing held or billed for a refused
 * request, concurrency slots that come back when a stream ends, the request-limit cooldown, and a spoofed
 * {@code X-Forwarded-For} that changes nothing. Every test starts a minute later on the gateway's clock, so the
 * request windows of one test do not reach into the next.
 */
@MicronautTest(transactional = false)
class TrafficLimitsE2ETest extends GatewayE2ETest {

    private static final String CATALOG = new TestCatalog()
            .simulator("instant", 0, 0, 3)
            .simulator("slow", 0, 20, 400)
            .model("t/fast", "instant", "1", "3")
            .model("t/slow", "slow", "1", "3")
            .yaml();

    private static final HttpClient STREAMS = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        useCatalog(properties, CATALOG);
        properties.put("tollgate.limits.key.burst", "3");
        properties.put("tollgate.limits.key.concurrency", "2");
        properties.put("tollgate.limits.ip.burst", "12");
        return properties;
    }

    @BeforeEach
    void aMinuteLater() {
        clock.advance(Duration.ofSeconds(61));
    }

    private static String body(String model, String prompt, boolean stream) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + (model.equals("t/slow") ? 400 : 20)
                + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
    }

    private Reply chat(String key, String prompt) {
        return post("/v1/chat/completions", key, body("t/fast", prompt, false));
    }

    private static void assertRateLimited(Reply reply, long minRetry, long maxRetry) {
        assertEquals(429, reply.status(), reply.raw().body());
        assertEquals("rate_limit_exceeded", reply.error().get("code"));
        assertEquals("rate_limit_error", reply.error().get("type"));
        assertTrue(reply.error().get("message") instanceof String m && !m.isBlank());
        long retryAfter = Long.parseLong(reply.header("retry-after"));
        assertTrue(retryAfter >= minRetry && retryAfter <= maxRetry, "Retry-After " + retryAfter);
        assertNotNull(reply.header("x-request-id"));
        assertNull(reply.header("x-should-retry"), "rate limits are worth retrying, unlike insufficient_quota");
    }

    @Test
    void everyAnswerCarriesTheDecidingBucketsAndARefusalSaysWhenToComeBack() {
        String key = regularKey();
        Reply first = chat(key, "first question");
        assertEquals(200, first.status(), first.raw().body());
        assertEquals("3", first.header("x-ratelimit-limit-requests"), "the key's burst of 3 is the tightest");
        assertEquals("2", first.header("x-ratelimit-remaining-requests"));
        assertEquals("10s", first.header("x-ratelimit-reset-requests"));
        assertEquals("key", first.header("x-ratelimit-scope-requests"));
        assertEquals("2000000", first.header("x-ratelimit-limit-tokens"));
        long tokensLeft = Long.parseLong(first.header("x-ratelimit-remaining-tokens"));
        assertTrue(tokensLeft < 2_000_000 - 20 && tokensLeft > 2_000_000 - 20 - 50,
                "the prompt's tokens plus max_tokens are counted: " + tokensLeft);
        assertEquals(200, chat(key, "second question").status());
        assertEquals(200, chat(key, "third question").status());

        Reply refused = chat(key, "fourth question");
        assertRateLimited(refused, 10, 10);
        assertEquals("0", refused.header("x-ratelimit-remaining-requests"));
        assertEquals("key", refused.header("x-ratelimit-scope-requests"));
        String refusedId = refused.header("x-request-id");
        assertEquals(0, rowsOf("request_ledger", refusedId) + rowsOf("request_hold", refusedId),
                "a refused request holds and bills nothing");

        clock.advance(Duration.ofSeconds(10));
        assertEquals(200, chat(key, "after waiting").status(), "Retry-After was enough");
    }

    @Test
    void theModelListIsCountedAndAnswersWithHeadersToo() {
        String key = regularKey();
        Reply list = get("/v1/models", key);
        assertEquals(200, list.status());
        assertEquals("2", list.header("x-ratelimit-remaining-requests"));
        assertNull(list.header("x-ratelimit-limit-tokens"), "a list estimates no tokens");
        get("/v1/models/t/fast", key);
        get("/v1/models", key);
        assertRateLimited(get("/v1/models", key), 1, 10);
        assertRateLimited(chat(key, "a question"), 1, 10);
    }

    @Test
    void requestsRefusedForTheirContentAreCountedAndCarryTheHeaders() {
        String key = regularKey();
        Reply invalid = post("/v1/chat/completions", key, "{\"model\":\"t/fast\",\"messages\":[]}");
        assertEquals(400, invalid.status(), invalid.raw().body());
        assertEquals("2", invalid.header("x-ratelimit-remaining-requests"), "a 400 counts in the key's burst of 3");
        assertEquals("key", invalid.header("x-ratelimit-scope-requests"));
        assertNull(invalid.header("x-ratelimit-limit-tokens"), "nothing was estimated");
        Reply unknown = post("/v1/chat/completions", key, body("t/no-such-model", "hello", true));
        assertEquals(404, unknown.status(), unknown.raw().body());
        assertEquals("model_not_found", unknown.error().get("code"));
        assertEquals("1", unknown.header("x-ratelimit-remaining-requests"));
        assertEquals(400, post("/v1/chat/completions", key, "not json").status());
        Reply limited = post("/v1/chat/completions", key, "{\"model\":\"t/fast\",\"messages\":[]}");
        assertRateLimited(limited, 1, 10);
        assertRateLimited(chat(key, "a valid question"), 1, 10);
        String refusedId = limited.header("x-request-id");
        assertEquals(0, rowsOf("request_ledger", refusedId) + rowsOf("request_hold", refusedId));
    }

    @Test
    void threeBlocksWithinAMinutePutTheKeyIntoACooldown() {
        String key = regularKey();
        for (int i = 0; i < 3; i++) {
            assertEquals(200, chat(key, "question " + "x".repeat(i + 1)).status());
        }
        for (int i = 0; i < 2; i++) {
            clock.advance(Duration.ofSeconds(1));
            assertRateLimited(chat(key, "blocked"), 1, 10);
        }
        // The third block starts the cooldown, and its refusal says so: a client that waits as told gets in.
        clock.advance(Duration.ofSeconds(1));
        Reply third = chat(key, "blocked");
        assertRateLimited(third, 30, 30);
        assertTrue(((String) third.error().get("message")).contains("paused for 30 s"), third.raw().body());
        clock.advance(Duration.ofSeconds(8)); // the burst window alone would admit again now
        Reply cooling = chat(key, "too soon");
        assertRateLimited(cooling, 22, 22);
        clock.advance(Duration.ofSeconds(22));
        assertEquals(200, chat(key, "patient now").status());
    }

    @Test
    void aForwardedForHeaderFromAnUntrustedPeerChangesNothing() {
        String[] keys = {regularKey(), regularKey(), regularKey(), regularKey(), regularKey()};
        int admitted = 0;
        Reply last = null;
        for (int i = 0; i < 15; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + keys[i / 3])
                    .header("Content-Type", "application/json")
                    .header("X-Forwarded-For", "198.51.100." + (i + 1))
                    .header("Forwarded", "for=198.51.100." + (i + 1))
                    .POST(HttpRequest.BodyPublishers.ofString(body("t/fast", "spoof " + i, false))).build();
            last = exchange(request);
            if (last.status() == 200) {
                admitted++;
            }
        }
        assertEquals(12, admitted, "one source IP (the peer), whatever the headers say: its burst of 12");
        assertRateLimited(last, 1, 10);
        assertEquals("ip", last.header("x-ratelimit-scope-requests"));
    }

    @Test
    void concurrencySlotsAreHeldWhileStreamsRunAndComeBackWhenTheyEnd() throws Exception {
        String key = regularKey();
        InputStream one = openStream(key, "long story one");
        InputStream two = openStream(key, "long story two");

        Reply third = post("/v1/chat/completions", key, body("t/slow", "long story three", true));
        assertRateLimited(third, 1, 1);
        assertTrue(((String) third.error().get("message")).contains("at once"), third.raw().body());

        one.close(); // the client leaves: its request ends, and so does its slot
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Reply fourth;
        do {
            Thread.sleep(20);
            fourth = chat(key, "short question " + System.nanoTime());
        } while (fourth.status() == 429 && System.nanoTime() < deadline);
        assertEquals(200, fourth.status(), fourth.raw().body());
        two.close();
    }

    private InputStream openStream(String key, String prompt) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body("t/slow", prompt + " " + UUID.randomUUID(), true)))
                .build();
        HttpResponse<InputStream> response = STREAMS.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("x-ratelimit-limit-requests").isPresent(), "streams carry them too");
        InputStream body = response.body();
        assertFalse(body.read() < 0, "the stream began");
        return body;
    }
}
