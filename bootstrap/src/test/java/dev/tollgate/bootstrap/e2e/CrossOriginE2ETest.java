package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Browsers, extensions and editor plug-ins on other origins may call the key-authenticated APIs, as OpenAI's and
 * OpenRouter's; the cookie-based routes stay same-origin, and their refusal on an API path has the envelope.
 */
@MicronautTest(transactional = false)
class CrossOriginE2ETest extends GatewayE2ETest {

    private static final List<String> ORIGINS = List.of("https://app.example.com", "app://obsidian.md",
            "chrome-extension://abcdefgh", "null", "vscode-webview://x1");

    private HttpRequest.Builder request(String path, String origin) {
        return HttpRequest.newBuilder(URI.create(server.getURL() + path)).header("Origin", origin);
    }

    private Reply preflight(String path, String origin, String method) {
        return exchange(request(path, origin).header("Access-Control-Request-Method", method)
                .header("Access-Control-Request-Headers", "authorization, content-type, x-stainless-os")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
    }

    @Test
    void anyOriginMayCallTheApisWithAKeyAndReadTheirHeaders() {
        String gpm = readWriteKey();
        String gp = (String) createKey(gpm, "{\"name\":\"browser\"}").json().get("key");
        for (String origin : ORIGINS) {
            for (String[] route : List.of(new String[] {"/v1/chat/completions", "POST"},
                    new String[] {"/v1/models", "GET"}, new String[] {"/api/v1/keys", "POST"},
                    new String[] {"/api/v1/keys/" + "a".repeat(64), "PATCH"})) {
                Reply allowed = preflight(route[0], origin, route[1]);
                assertEquals(200, allowed.status(), origin + " " + route[0]);
                assertEquals(origin, allowed.header("Access-Control-Allow-Origin"), route[0]);
                assertEquals(route[1], allowed.header("Access-Control-Allow-Methods"));
                assertTrue(allowed.header("Access-Control-Allow-Headers").contains("authorization"));
                assertNull(allowed.header("Access-Control-Allow-Credentials"), "no cookies cross-origin");
                assertTrue(allowed.header("x-request-id") != null
                        && allowed.header("x-request-id").startsWith("req_"), "an id on every answer: " + route[0]);
            }
            Reply chat = exchange(request("/v1/chat/completions", origin).header("Authorization", "Bearer " + gp)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"tollgate/simulator-free\",\"max_tokens\":3,"
                                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build());
            assertEquals(200, chat.status(), chat.raw().body());
            assertEquals(origin, chat.header("Access-Control-Allow-Origin"));
            String exposed = chat.header("Access-Control-Expose-Headers");
            for (String header : List.of("x-request-id", "retry-after", "x-ratelimit-remaining-requests",
                    "x-ratelimit-reset-tokens")) {
                assertTrue(exposed.contains(header), header + " readable by the page: " + exposed);
            }
            Reply keys = exchange(request("/api/v1/keys", origin).header("Authorization", "Bearer " + gpm).GET()
                    .build());
            assertEquals(200, keys.status());
            assertEquals(origin, keys.header("Access-Control-Allow-Origin"));
        }
    }

    @Test
    void theCookieRoutesStaySameOriginAndSayWhyOnTheApiPath() {
        Reply playground = exchange(request("/v1/public/chat/completions", "https://evil.example")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"tollgate/simulator-free\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build());
        assertEquals(403, playground.status());
        Map<String, Object> error = playground.error();
        assertEquals("forbidden", error.get("code"));
        assertEquals("permission_error", error.get("type"));
        assertTrue(error.get("message").toString().contains("https://evil.example"), error.toString());
        assertNull(playground.header("Access-Control-Allow-Origin"));

        Reply preflight = preflight("/v1/public/chat/completions", "https://evil.example", "POST");
        assertEquals(403, preflight.status());
        assertNull(preflight.header("Access-Control-Allow-Origin"));

        // The dashboard (its outbox holds sign-up links) answers no foreign page on this localhost gateway.
        Reply outbox = exchange(request("/outbox", "https://evil.example").GET().build());
        assertEquals(403, outbox.status());
        assertNull(outbox.header("Access-Control-Allow-Origin"));
        // Its own pages still work.
        assertEquals(200, exchange(request("/outbox", server.getURL().toString().replaceAll("/$", "")).GET()
                .build()).status());
    }
}
