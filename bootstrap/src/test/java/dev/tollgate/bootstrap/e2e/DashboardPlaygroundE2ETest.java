package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.CreditAccountUseCase;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The playground page and its signed-in, user-billed requests: a dashboard session plus its form token in
 * {@code X-Tollgate-Form-Token} is billed to the account through one "Dashboard playground" key (in the key list and
 * the activity), limited to 4 in flight; a missing session is a 401, a wrong or another session's token a 403 — never
 * an anonymous fall back; visitors without either stay anonymous with the free models.
 */
@MicronautTest(transactional = false)
class DashboardPlaygroundE2ETest extends DashboardE2ESupport {

    private static final String CATALOG = """
            providers:
              sim:
                type: simulator
                time-to-first-token-ms: 0
                tokens-per-second: 0
                output-tokens: 4
              slow:
                type: simulator
                time-to-first-token-ms: 0
                tokens-per-second: 20
                output-tokens: 400
            models:
              - id: pg/priced
                owned-by: test
                created: 1767225600
                context-length: 4096
                max-output-tokens: 512
                routes:
                  - provider: sim
                    model: priced
                    input-usd-per-million: "1000"
                    output-usd-per-million: "1000"
              - id: pg/free-slow
                owned-by: test
                created: 1767225600
                context-length: 4096
                max-output-tokens: 512
                routes:
                  - provider: slow
                    model: slow
                    input-usd-per-million: "0"
                    output-usd-per-million: "0"
            """;
    private static final Pattern TOKEN = Pattern.compile("data-token=\"([0-9a-f]{64})\"");

    @Inject
    CreditAccountUseCase credit;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        useCatalog(properties, CATALOG);
        properties.put("tollgate.playground.user-billed", "true");
        properties.put("tollgate.playground.models", "pg/free-slow");
        return properties;
    }

    private Browser funded(String email) {
        Browser browser = signedInVerified(email);
        credit.credit(new Email(email), Usd.ofMicros(5_000_000));
        return browser;
    }

    private static String ask(String model, boolean stream) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"max_tokens\":8,"
                + "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                + "{\"role\":\"user\",\"content\":\"hello from the dashboard " + System.nanoTime() + "\"}]}";
    }

    private HttpRequest.Builder chat(Browser browser, String token, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/v1/public/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (!browser.cookies.isEmpty()) {
            request.header("Cookie", browser.cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("; ")));
        }
        if (token != null) {
            request.header("X-Tollgate-Form-Token", token);
        }
        return request;
    }

    private Reply chatAs(Browser browser, String token, String body) {
        return exchange(chat(browser, token, body).build());
    }

    private static String tokenOf(String html) {
        Matcher m = TOKEN.matcher(html);
        assertTrue(m.find(), "the page carries the session's token for its script: " + html);
        return m.group(1);
    }

    @Test
    void aSignedInUserIsBilledThroughTheAccountsPlaygroundKey() throws InterruptedException {
        String email = unique();
        Browser browser = funded(email);
        HttpResponse<String> page = browser.get("/playground");
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("data-mode=\"account\"") && page.body().contains(">pg/priced<")
                && page.body().contains(">pg/free-slow<"), page.body());
        String token = tokenOf(page.body());

        Reply first = chatAs(browser, token, ask("pg/priced", true));
        assertEquals(200, first.status(), first.raw().body());
        assertTrue(first.header("content-type").startsWith("text/event-stream"));
        assertTrue(first.raw().body().contains("\"content\"") && first.raw().body().contains("data: [DONE]"));
        assertEquals("key", first.header("x-ratelimit-scope-requests"), "the /v1 key buckets apply");
        assertTrue(first.raw().headers().allValues("set-cookie").isEmpty(), "no anonymous principal");
        Reply second = chatAs(browser, token, ask("pg/priced", false));
        assertEquals(200, second.status(), second.raw().body());

        String requestId = first.header("x-request-id");
        String usage = "";
        for (int i = 0; i < 100 && !usage.contains(requestId); i++) {
            usage = browser.get("/usage").body();
            Thread.sleep(50);
        }
        assertTrue(usage.contains(requestId) && usage.contains("Dashboard playground"), usage);
        String keys = browser.get("/keys").body();
        assertEquals(1, Pattern.compile(">Dashboard playground<").matcher(keys).results().count(),
                "one playground key, reused: " + keys);
        assertFalse(browser.get("/balance").body().contains("−$0.00"), "charged");
    }

    @Test
    void theSessionAndItsTokenAreBothRequiredNeverAnAnonymousFallBack() {
        Browser browser = funded(unique());
        String token = tokenOf(browser.get("/playground").body());

        Reply wrongToken = chatAs(browser, "0".repeat(64), ask("pg/priced", false));
        assertEquals(403, wrongToken.status(), wrongToken.raw().body());
        assertEquals("invalid_form_token", wrongToken.error().get("code"));

        Browser stranger = new Browser();
        Reply noSession = chatAs(stranger, token, ask("pg/priced", false));
        assertEquals(401, noSession.status());
        assertEquals("session_required", noSession.error().get("code"));

        Reply cookieOnly = chatAs(browser, null, ask("pg/priced", false));
        assertEquals(404, cookieOnly.status(), "without the token the request is anonymous: free models only");
        assertEquals(200, chatAs(browser, null, ask("pg/free-slow", false)).status());

        Browser mallory = funded(unique());
        Reply foreignToken = chatAs(mallory, token, ask("pg/priced", false));
        assertEquals(403, foreignToken.status(), "another session's token");
    }

    @Test
    void aDisabledPlaygroundKeyStopsTheSpendingAndUnverifiedAccountsAreRefused() {
        Browser browser = funded(unique());
        String token = tokenOf(browser.get("/playground").body());
        assertEquals(200, chatAs(browser, token, ask("pg/priced", false)).status());
        String keys = browser.get("/keys").body();
        Matcher hash = Pattern.compile("href=\"/keys/([0-9a-f]{64})\"").matcher(keys);
        assertTrue(hash.find());
        assertEquals(303, browser.post("/keys/" + hash.group(1) + "/disable", Map.of("csrf", csrfOf(keys)))
                .statusCode());
        Reply refused = chatAs(browser, token, ask("pg/priced", false));
        assertEquals(403, refused.status());
        assertEquals("playground_key_unavailable", refused.error().get("code"));

        String email = unique();
        Browser unverified = new Browser();
        assertEquals(200, signUp(unverified, email, PASSWORD).statusCode());
        assertEquals(303, logIn(unverified, email, PASSWORD).statusCode());
        String page = unverified.get("/playground").body();
        assertTrue(page.contains("data-mode=\"anonymous\"") && page.contains("Confirm your e-mail address"), page);
        Reply early = chatAs(unverified, csrfOf(page), ask("pg/priced", false));
        assertEquals(403, early.status());
        assertEquals("email_not_verified", early.error().get("code"));
    }

    @Test
    void visitorsSeeTheFreeModelsAndFourRequestsFlyAtOnceForASignedInUser() throws Exception {
        String anonymous = new Browser().get("/playground").body();
        assertTrue(anonymous.contains("data-mode=\"anonymous\"") && anonymous.contains(">pg/free-slow<"));
        assertFalse(anonymous.contains("data-token=\"0") || TOKEN.matcher(anonymous).find(),
                "no session token for visitors");

        Browser browser = funded(unique());
        String token = tokenOf(browser.get("/playground").body());
        List<InputStream> streams = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            HttpResponse<InputStream> response = HTTP.send(chat(browser, token,
                    ask("pg/free-slow", true).replace("\"max_tokens\":8", "\"max_tokens\":400")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            streams.add(response.body());
            assertTrue(response.body().read() >= 0);
        }
        Reply fifth = chatAs(browser, token, ask("pg/free-slow", false));
        assertEquals(429, fifth.status(), fifth.raw().body());
        assertEquals("rate_limit_exceeded", fifth.error().get("code"));
        for (InputStream stream : streams) {
            stream.close();
        }
    }
}
