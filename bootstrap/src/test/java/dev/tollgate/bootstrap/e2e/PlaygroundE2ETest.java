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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The public playground (§4.2, §8.2) over HTTP in its default, anonymous mode: the signed browser cookie, the
 * per-principal, per-IP and concurrency limits, the free models only, the operator's ledger, and prompts sanitised
 * of personal data before they reach the upstream (a local OpenAI-compatible stub records what it received). The
 * peer 127.0.0.1 is a trusted proxy here, so {@code X-Forwarded-For} picks the source address per request.
 */
@MicronautTest(transactional = false)
class PlaygroundE2ETest extends GatewayE2ETest {

    private static final List<String> UPSTREAM_BODIES = new CopyOnWriteArrayList<>();
    private static SseUpstream upstream;
    private static int ipCounter;

    private static synchronized String startUpstream() {
        if (upstream == null) {
            String chunk = "{\"id\":\"u\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",";
            upstream = new SseUpstream(List.of(
                    chunk + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Noted.\"},\"finish_reason\":null}]}",
                    chunk + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
                    chunk + "\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":2,"
                            + "\"total_tokens\":14}}", "[DONE]"), UPSTREAM_BODIES::add);
        }
        return upstream.baseUrl();
    }

    @AfterAll
    static void stopUpstream() {
        if (upstream != null) {
            upstream.close();
        }
    }

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        String catalog = """
                providers:
                  recorder:
                    type: openai
                    base-url: %s
                  slow:
                    type: simulator
                    time-to-first-token-ms: 0
                    tokens-per-second: 20
                    output-tokens: 400
                models:
                  - id: pg/free
                    owned-by: test
                    created: 1767225600
                    context-length: 4096
                    max-output-tokens: 2048
                    routes:
                      - provider: recorder
                        model: upstream-free
                        input-usd-per-million: "1"
                        output-usd-per-million: "2"
                        capabilities: {tools: true, response-format: true}
                  - id: pg/slow
                    owned-by: test
                    created: 1767225600
                    context-length: 4096
                    max-output-tokens: 512
                    routes:
                      - provider: slow
                        model: slow
                        input-usd-per-million: "0"
                        output-usd-per-million: "0"
                  - id: pg/paid
                    owned-by: test
                    created: 1767225600
                    context-length: 4096
                    max-output-tokens: 512
                    routes:
                      - provider: slow
                        model: paid
                        input-usd-per-million: "5"
                        output-usd-per-million: "15"
                """.formatted(startUpstream());
        useCatalog(properties, catalog);
        properties.put("tollgate.playground.models", "pg/free,pg/slow");
        properties.put("tollgate.playground.max-output-tokens", "500");
        properties.put("tollgate.http.trusted-proxies", "127.0.0.1/32");
        return properties;
    }

    @BeforeEach
    void anHourLater() {
        clock.advance(Duration.ofMinutes(61)); // the hourly playground windows of earlier tests are over
    }

    private static synchronized String freshIp() {
        ipCounter++;
        return "198.51." + (ipCounter / 250) + "." + (ipCounter % 250 + 1);
    }

    private Reply playground(String ip, String cookie, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL()
                + "/v1/public/chat/completions"))
                .header("Content-Type", "application/json")
                .header("X-Forwarded-For", ip)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return exchange(request.build());
    }

    private static String ask(String model, String prompt) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\""
                + prompt + "\"}]}";
    }

    /** The {@code name=value} part of the playground cookie a reply set. */
    private static String cookieOf(Reply reply) {
        String setCookie = reply.raw().headers().allValues("set-cookie").stream()
                .filter(c -> c.startsWith("tollgate_playground=")).findFirst().orElse(null);
        return setCookie == null ? null : setCookie.substring(0, setCookie.indexOf(';'));
    }

    @Test
    void anAnonymousVisitorGetsASignedCookieAnAnswerAndTheOperatorPays() throws Exception {
        Reply first = playground(freshIp(), null, ask("pg/free", "Hello there"));
        assertEquals(200, first.status(), first.raw().body());
        String setCookie = first.raw().headers().allValues("set-cookie").get(0);
        assertTrue(setCookie.startsWith("tollgate_playground="), setCookie);
        assertTrue(setCookie.toLowerCase().contains("httponly"), setCookie);
        assertTrue(setCookie.toLowerCase().contains("samesite=lax"), setCookie);
        assertEquals("chat.completion", first.json().get("object"));
        assertEquals("20", first.header("x-ratelimit-limit-requests"));
        assertNotNull(first.header("x-request-id"));

        String cookie = cookieOf(first);
        Reply second = playground(freshIp(), cookie, ask("pg/free", "Hello again"));
        assertEquals(200, second.status());
        assertNull(cookieOf(second), "a valid cookie is kept, not replaced");

        String requestId = first.header("x-request-id");
        // The playground row is written once the request has ended, after the answer.
        for (int i = 0; i < 250 && rowsOf("playground_ledger", requestId) == 0; i++) {
            Thread.sleep(20);
        }
        assertEquals(1, rowsOf("playground_ledger", requestId), "the operator's ledger has the request");
        assertEquals(0, rowsOf("request_ledger", requestId), "no account was billed");
    }

    @Test
    void personalDataNeverReachesTheUpstream() {
        UPSTREAM_BODIES.clear();
        Reply reply = playground(freshIp(), null, ask("pg/free",
                "I am jane.doe@example.com, card 4111 1111 1111 1111, phone +1 (415) 555-0132"));
        String sent = theOneUpstreamBody(reply);
        assertFalse(sent.contains("jane.doe"), sent);
        assertFalse(sent.contains("4111"), sent);
        assertFalse(sent.contains("555-0132"), sent);
        assertTrue(sent.contains("I am [email], card [card], phone [phone]"), sent);
        assertFalse(reply.raw().body().contains("[email]"), "nothing about the sanitising is announced");
    }

    @Test
    void personalDataInStopToolsAndResponseFormatNeverReachesTheUpstream() {
        UPSTREAM_BODIES.clear();
        String body = "{\"model\":\"pg/free\",\"max_tokens\":50,\"stop\":[\"Regards, ann@example.org\"],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"notify\",\"description\":"
                + "\"Texts +44 20 7946 0958\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}],"
                + "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"r\",\"schema\":"
                + "{\"type\":\"string\",\"examples\":[\"SSN 123-45-6789\"]}}}}";
        String sent = theOneUpstreamBody(playground(freshIp(), null, body));
        assertFalse(sent.contains("ann@example.org"), sent);
        assertFalse(sent.contains("7946"), sent);
        assertFalse(sent.contains("123-45"), sent);
        assertTrue(sent.contains("Regards, [email]"), sent);
        assertTrue(sent.contains("Texts [phone]"), sent);
        assertTrue(sent.contains("SSN [ssn]"), sent);
        assertTrue(sent.contains("\"name\":\"notify\""), "the tool itself is kept: " + sent);
    }

    /** What the upstream received for a served playground request (the only one since the bodies were cleared). */
    private static String theOneUpstreamBody(Reply reply) {
        assertEquals(200, reply.status(), reply.raw().body());
        assertEquals(1, UPSTREAM_BODIES.size());
        return UPSTREAM_BODIES.get(0);
    }

    @Test
    void oneAddressGetsTwentyAMinuteWhateverCookiesItRotates() {
        String ip = freshIp();
        int admitted = 0;
        Reply last = null;
        for (int i = 0; i < 25; i++) {
            last = playground(ip, null, ask("pg/free", "question number " + "x".repeat(i + 1)));
            if (last.status() == 200) {
                admitted++;
            }
        }
        assertEquals(20, admitted);
        assertEquals(429, last.status());
        assertEquals("rate_limit_exceeded", last.error().get("code"));
        assertEquals("playground_ip", last.header("x-ratelimit-scope-requests"));
        long retryAfter = Long.parseLong(last.header("retry-after"));
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
    }

    @Test
    void oneBrowserGetsTwentyAMinuteFromWhereverItComes() {
        String cookie = cookieOf(playground(freshIp(), null, ask("pg/free", "first")));
        int admitted = 1;
        Reply last = null;
        for (int i = 0; i < 24; i++) {
            last = playground(freshIp(), cookie, ask("pg/free", "more " + "y".repeat(i + 1)));
            if (last.status() == 200) {
                admitted++;
            }
        }
        assertEquals(20, admitted);
        assertEquals("principal", last.header("x-ratelimit-scope-requests"));
    }

    @Test
    void invalidRequestsCountInTheLimitsToo() {
        String ip = freshIp();
        Reply first = playground(ip, null, ask("pg/paid", "not a free model"));
        assertEquals(404, first.status(), first.raw().body());
        assertEquals("19", first.header("x-ratelimit-remaining-requests"), "a refusal carries the headers");
        String cookie = cookieOf(first);
        for (int i = 0; i < 19; i++) { // twenty in all
            assertEquals(i % 2 == 0 ? 404 : 400, playground(ip, cookie, i % 2 == 0 ? ask("nope/nope", "x")
                    : "{\"model\":\"pg/free\",\"messages\":[]}").status());
        }
        Reply over = playground(ip, cookie, ask("pg/free", "a valid one after twenty invalid"));
        assertEquals(429, over.status(), "twenty invalid requests used the minute up: " + over.raw().body());
        assertEquals(429, playground(ip, cookie, ask("nope/nope", "x")).status(), "and so are invalid ones");
    }

    @Test
    void fiftyAnHourPerBrowser() {
        String cookie = cookieOf(playground(freshIp(), null, ask("pg/free", "start")));
        int admitted = 1;
        for (int minute = 0; minute < 3; minute++) {
            for (int i = 0; i < 20; i++) {
                if (playground(freshIp(), cookie, ask("pg/free", "hour " + minute + " " + "z".repeat(i + 1)))
                        .status() == 200) {
                    admitted++;
                }
            }
            clock.advance(Duration.ofSeconds(61));
        }
        assertEquals(50, admitted);
    }

    @Test
    void twoStreamsPerBrowserAtOnce() throws Exception {
        String ip1 = freshIp();
        String cookie = cookieOf(playground(ip1, null, ask("pg/free", "hi there friend")));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        InputStream[] streams = new InputStream[2];
        for (int i = 0; i < 2; i++) {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(server.getURL()
                            + "/v1/public/chat/completions")).header("Content-Type", "application/json")
                    .header("X-Forwarded-For", freshIp()).header("Cookie", cookie)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"pg/slow\",\"stream\":true,"
                            + "\"max_tokens\":400,\"messages\":[{\"role\":\"user\",\"content\":\"story " + i + "\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            streams[i] = response.body();
            assertTrue(streams[i].read() >= 0);
        }
        Reply third = playground(freshIp(), cookie, ask("pg/free", "a third at once"));
        assertEquals(429, third.status(), third.raw().body());
        assertTrue(((String) third.error().get("message")).contains("at once"));
        for (InputStream stream : streams) {
            stream.close();
        }
    }

    @Test
    void twoStreamsPerAddressAtOnceWhateverCookiesItDrops() throws Exception {
        String ip = freshIp();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        InputStream[] streams = new InputStream[2];
        for (int i = 0; i < 2; i++) { // no cookie: a new principal each time
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(server.getURL()
                            + "/v1/public/chat/completions")).header("Content-Type", "application/json")
                    .header("X-Forwarded-For", ip)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"pg/slow\",\"stream\":true,"
                            + "\"max_tokens\":400,\"messages\":[{\"role\":\"user\",\"content\":\"tale " + i + "\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            streams[i] = response.body();
            assertTrue(streams[i].read() >= 0);
        }
        Reply third = playground(ip, null, ask("pg/free", "a third without a cookie"));
        assertEquals(429, third.status(), third.raw().body());
        assertEquals("playground_ip", third.header("x-ratelimit-scope-requests"));
        assertEquals("1", third.header("retry-after"));
        assertEquals(200, playground(freshIp(), null, ask("pg/free", "another address")).status());
        for (InputStream stream : streams) {
            stream.close();
        }
    }

    @Test
    void onlyTheFreeModelsAndTheirCapAreOffered() {
        Reply paid = playground(freshIp(), null, ask("pg/paid", "hello"));
        assertEquals(404, paid.status());
        assertEquals("model_not_found", paid.error().get("code"));
        assertTrue(((String) paid.error().get("message")).contains("pg/free, pg/slow"), paid.raw().body());
        // An id longer than any model's (an audit, 2026-11-29: it pointed a visitor without a key at GET /v1/models)
        Reply overLong = playground(freshIp(), null, ask("m".repeat(257), "hello"));
        assertEquals(404, overLong.status());
        assertEquals("model_not_found", overLong.error().get("code"));
        assertTrue(((String) overLong.error().get("message")).contains("choose one of: pg/free, pg/slow"),
                overLong.raw().body());

        Reply tooLong = playground(freshIp(), null,
                "{\"model\":\"pg/free\",\"max_tokens\":1000,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertEquals(400, tooLong.status());
        assertEquals("max_tokens", tooLong.error().get("param"));
        assertTrue(((String) tooLong.error().get("message")).contains("on the public playground"));
    }

    @Test
    void aKeyIsIgnoredWhileUserBilledModeIsOff() {
        Reply reply = send("POST", "/v1/public/chat/completions", "gp-not-a-real-key", ask("pg/free", "hello key"));
        assertEquals(200, reply.status(), "the header changes nothing: the request is anonymous");
        assertNotNull(cookieOf(reply));
    }

    @Test
    void aKeyInTheUrlIsRefusedEvenWhileUserBilledModeIsOff() {
        String key = "gp-" + "k".repeat(32) + "abcdef";
        for (String query : List.of("?key=" + key, "?auth=Bearer%2520" + key, "?" + key)) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/public/chat/completions"
                            + query))
                    .header("Content-Type", "application/json")
                    .header("X-Forwarded-For", freshIp())
                    .POST(HttpRequest.BodyPublishers.ofString(ask("pg/free", "hello url"))).build();
            Reply reply = exchange(request);
            assertEquals(401, reply.status(), query);
            assertEquals("invalid_api_key", reply.error().get("code"), query);
            assertFalse(reply.raw().body().contains(key), "the key is not quoted back");
        }
        Reply plain = playground(freshIp(), null, ask("pg/free", "hello"));
        assertEquals(200, plain.status(), "the same request without the key is served");
    }

    @Test
    void aDashboardSessionIsIgnoredWhileUserBilledModeIsOff() throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/public/chat/completions"))
                .header("Content-Type", "application/json")
                .header("X-Forwarded-For", freshIp())
                .header("Cookie", "tollgate_session=not-a-session")
                .header("X-Tollgate-Form-Token", "not-a-token")
                .POST(HttpRequest.BodyPublishers.ofString(ask("pg/free", "hello session"))).build();
        Reply reply = exchange(request);
        assertEquals(200, reply.status(), "served anonymously, not refused as a broken session");
        assertNotNull(cookieOf(reply));
        String requestId = reply.header("x-request-id");
        for (int i = 0; i < 250 && rowsOf("playground_ledger", requestId) == 0; i++) {
            Thread.sleep(20);
        }
        assertEquals(1, rowsOf("playground_ledger", requestId), "the operator pays");
        assertEquals(0, rowsOf("request_ledger", requestId), "no account is billed");
    }
}
