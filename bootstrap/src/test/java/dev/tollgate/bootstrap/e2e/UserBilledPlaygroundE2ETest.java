package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The playground's user-billed mode (§8.2): a caller with a regular key is billed like on {@code /v1} and may
 * have 4 requests in flight; an invalid key is refused, not served anonymously; visitors without a key stay
 * anonymous.
 */
@MicronautTest(transactional = false)
class UserBilledPlaygroundE2ETest extends GatewayE2ETest {

    static final String CATALOG = new TestCatalog()
            .simulator("sim", 0, 0, 4)
            .simulator("slow", 0, 20, 400)
            .model("ub/priced", "sim", "1000", "1000")
            .model("ub/slow", "slow", "1", "1")
            .yaml();

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        useCatalog(properties, CATALOG);
        properties.put("tollgate.playground.user-billed", "true");
        properties.put("tollgate.playground.models", "ub/slow");
        return properties;
    }

    static String ask(String model, boolean stream, int maxTokens) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello from a signed in user\"}]}";
    }

    @Test
    void aSignedInCallerIsBilledLikeOnV1() {
        Email email = newAccount(true);
        String key = regularKey(email);
        Reply reply = post("/v1/public/chat/completions", key, ask("ub/priced", false, 4));
        assertEquals(200, reply.status(), reply.raw().body());
        assertTrue(reply.raw().headers().allValues("set-cookie").isEmpty(), "no anonymous principal is issued");
        assertEquals("key", reply.header("x-ratelimit-scope-requests"), "the /v1 buckets apply");
        @SuppressWarnings("unchecked")
        Map<String, Object> usage = (Map<String, Object>) reply.json().get("usage");
        long tokens = ((Number) usage.get("total_tokens")).longValue();

        long deadline = System.currentTimeMillis() + 5_000;
        Object usd;
        do {
            usd = get("/api/v1/keys", managementKey(email, ManagementAccess.READ_ONLY)).dataList().get(0).get("usage");
        } while (usd(usd).signum() == 0 && System.currentTimeMillis() < deadline);
        // $1000 per million tokens: $0.001 per token, every token charged.
        assertUsd(java.math.BigDecimal.valueOf(tokens).movePointLeft(3).toPlainString(), usd);
    }

    @Test
    void anInvalidKeyIsRefusedNotServedAnonymously() {
        Reply reply = post("/v1/public/chat/completions", "gp-this-is-not-a-valid-key", ask("ub/slow", false, 4));
        assertEquals(401, reply.status());
        assertEquals("invalid_api_key", reply.error().get("code"));
    }

    @Test
    void withoutAKeyTheVisitorIsAnonymous() {
        Reply reply = post("/v1/public/chat/completions", null, ask("ub/slow", false, 4));
        assertEquals(200, reply.status(), reply.raw().body());
        assertTrue(reply.raw().headers().allValues("set-cookie").get(0).startsWith("tollgate_playground="));
        assertEquals(404, post("/v1/public/chat/completions", null, ask("ub/priced", false, 4)).status(),
                "anonymous visitors get the free models only");
    }

    @Test
    void fourRequestsInFlightPerSignedInUser() throws Exception {
        String key = regularKey(newAccount(true));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<InputStream> streams = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(server.getURL()
                            + "/v1/public/chat/completions")).header("Authorization", "Bearer " + key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(ask("ub/slow", true, 400).replace("signed in user",
                            "signed in user " + i))).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            streams.add(response.body());
            assertTrue(response.body().read() >= 0);
        }
        Reply fifth = post("/v1/public/chat/completions", key, ask("ub/slow", false, 4));
        assertEquals(429, fifth.status(), fifth.raw().body());
        assertEquals("rate_limit_exceeded", fifth.error().get("code"));
        assertEquals(200, post("/v1/chat/completions", key, ask("ub/slow", false, 4)).status(),
                "on /v1 the key's own cap of 50 applies, not the playground's 4");
        for (InputStream stream : streams) {
            stream.close();
        }
    }
}
