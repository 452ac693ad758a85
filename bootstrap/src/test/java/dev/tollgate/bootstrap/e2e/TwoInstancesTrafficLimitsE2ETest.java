package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.in.account.OpenAccountUseCase;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.CreateApiKeyUseCase;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * §8 across instances: two gateways with their counters in the machine's Redis share every bucket (a key's burst
 * and its concurrency cap hold for both together); with Redis unreachable, each admits its share of the limit
 * (limit ÷ live instances) and nothing fails.
 */
class TwoInstancesTrafficLimitsE2ETest {

    private static final String REDIS = System.getenv().getOrDefault("REDIS_URI", "redis://127.0.0.1:6379");
    private static final String CATALOG = new TestCatalog()
            .simulator("instant", 0, 0, 3)
            .simulator("slow", 0, 20, 400)
            .model("two/fast", "instant", "0", "0")
            .model("two/slow", "slow", "0", "0")
            .yaml();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final List<ApplicationContext> instances = new ArrayList<>();

    private void startTwo(String redisUri) {
        startTwo(redisUri, Map.of());
    }

    private void startTwo(String redisUri, Map<String, String> extra) {
        String prefix = "tollgate-e2e:" + UUID.randomUUID() + ":";
        for (int i = 0; i < 2; i++) {
            Map<String, String> properties = new HashMap<>();
            TestDatabase.properties().forEach((k, v) -> properties.put(k, String.valueOf(v)));
            properties.put("micronaut.server.port", "-1");
            GatewayE2ETest.useCatalog(properties, CATALOG);
            properties.put("redis.uri", redisUri);
            properties.put("tollgate.redis.key-prefix", prefix);
            // Generous: a decision that times out on a loaded machine would make an instance decide alone for a moment.
            properties.put("tollgate.redis.command-timeout", "1s");
            properties.put("tollgate.limits.key.burst", "6");
            properties.put("tollgate.limits.key.concurrency", "2");
            properties.put("tollgate.limits.failover.instances", "2");
            properties.putAll(extra);
            instances.add(ApplicationContext.run(EmbeddedServer.class, new HashMap<>(properties))
                    .getApplicationContext());
        }
    }

    @AfterEach
    void stop() {
        instances.forEach(ApplicationContext::close);
        instances.clear();
    }

    private String key() {
        ApplicationContext first = instances.get(0);
        AccountId account = first.getBean(OpenAccountUseCase.class).open(new OpenAccountCommand(
                new Email("two-" + UUID.randomUUID() + "@example.test"), true, Usd.ofMicros(1_000_000)));
        return first.getBean(CreateApiKeyUseCase.class).create(ManagementPrincipal.operator(account),
                new CreateApiKeyCommand(new KeyName("k"), null, null, null)).rawKey().reveal();
    }

    private HttpRequest chat(int instance, String key, String model, String prompt, boolean stream) {
        String url = instances.get(instance).getBean(EmbeddedServer.class).getURL() + "/v1/chat/completions";
        return HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\",\"stream\":" + stream
                        + ",\"max_tokens\":400,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}"))
                .build();
    }

    private int status(int instance, String key, String prompt) throws Exception {
        return CLIENT.send(chat(instance, key, "two/fast", prompt, false), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void bothInstancesTogetherStayWithinOneKeysBurst() throws Exception {
        startTwo(REDIS);
        String key = key();
        int admitted = 0;
        for (int i = 0; i < 12; i++) {
            int status = status(i % 2, key, "question " + "q".repeat(i + 1));
            assertTrue(status == 200 || status == 429, "status " + status);
            admitted += status == 200 ? 1 : 0;
        }
        assertEquals(6, admitted, "6 per burst window for the key, whichever instance serves it");
    }

    @Test
    void theConcurrencyCapHoldsAcrossInstancesAndSlotsComeBack() throws Exception {
        startTwo(REDIS);
        String key = key();
        List<InputStream> open = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            HttpResponse<InputStream> stream = CLIENT.send(chat(i, key, "two/slow", "long " + "s".repeat(i + 1),
                    true), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, stream.statusCode());
            assertTrue(stream.body().read() >= 0);
            open.add(stream.body());
        }
        assertEquals(429, status(0, key, "third one"));
        assertEquals(429, status(1, key, "third two"));
        open.get(0).close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        int status;
        do {
            Thread.sleep(20);
            status = status(1, key, "after " + System.nanoTime());
        } while (status == 429 && System.nanoTime() < deadline);
        assertEquals(200, status, "the slot came back when the stream ended on the other instance");
        open.get(1).close();
    }

    @Test
    void withRedisUnreachableEachInstanceAdmitsItsShare() throws Exception {
        startTwo("redis://127.0.0.1:1"); // nothing listens there
        String key = key();
        int[] admitted = new int[2];
        for (int i = 0; i < 12; i++) {
            int status = status(i % 2, key, "fallback " + "f".repeat(i + 1));
            assertTrue(status == 200 || status == 429, "no request fails: " + status);
            admitted[i % 2] += status == 200 ? 1 : 0;
        }
        assertEquals(3, admitted[0], "6 ÷ 2 instances on the first");
        assertEquals(3, admitted[1], "6 ÷ 2 instances on the second");
    }

    @Test
    void aCheckSetToFailClosedAnswers503WithRetryAfterWhileRedisIsUnreachable() throws Exception {
        startTwo("redis://127.0.0.1:1", Map.of("tollgate.limits.on-store-failure.requests", "closed"));
        String key = key();
        for (int instance = 0; instance < 2; instance++) {
            HttpResponse<String> refused = CLIENT.send(chat(instance, key, "two/fast", "closed " + instance, false),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("1", refused.headers().firstValue("retry-after").orElse(""));
            assertTrue(refused.body().contains("\"code\":\"service_unavailable\""), refused.body());
            assertTrue(refused.headers().firstValue("x-request-id").isPresent());
            HttpResponse<String> stream = CLIENT.send(chat(instance, key, "two/fast", "closed stream " + instance,
                    true), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, stream.statusCode(), "refused before any SSE: " + stream.body());
        }
        assertEquals(0, heldOrBilled(key), "nothing held or billed for a request the limits could not check");
    }

    private long heldOrBilled(String rawKey) throws Exception {
        try (java.sql.Connection c = GatewayE2ETest.database();
                java.sql.PreparedStatement q = c.prepareStatement("SELECT (SELECT count(*) FROM request_hold h "
                        + "JOIN api_key k ON k.id = h.api_key_id WHERE k.key_hash = ?) + (SELECT count(*) FROM "
                        + "request_ledger WHERE key_hash = ?)")) {
            String hash = instances.get(0).getBean(dev.tollgate.domain.shared.KeyHasher.class)
                    .hash(dev.tollgate.domain.shared.RawKey.parse(rawKey, dev.tollgate.domain.shared.KeyKind.REGULAR)
                            .orElseThrow()).hex();
            q.setString(1, hash);
            q.setString(2, hash);
            try (java.sql.ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
