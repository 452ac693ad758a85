package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's API keys page over HTTP: the same keys as {@code /api/v1/keys} (created here, seen there, and
 * back), the raw key shown once, edits and deletes; forms without a token, invalid input, an unverified account,
 * and another account's keys — by their real hash or a guessed one — are refused and change nothing.
 */
@MicronautTest(transactional = false)
class DashboardApiKeysE2ETest extends DashboardE2ESupport {

    private static final Pattern GP_SECRET = Pattern.compile("gp-[0-9A-Za-z]{38}");
    private static final Pattern KEY_HASH = Pattern.compile("href=\"/keys/([0-9a-f]{64})\"");
    private static final DateTimeFormatter INPUT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm")
            .withZone(ZoneOffset.UTC);

    private HttpResponse<String> createApiKey(Browser browser, Map<String, String> fields) {
        return browser.submit("/keys", "/keys", fields);
    }

    private static List<String> hashes(String html) {
        return KEY_HASH.matcher(html).results().map(m -> m.group(1)).distinct().toList();
    }

    private String gpmOf(Browser browser) {
        HttpResponse<String> created = createKey(browser, "api");
        assertEquals(201, created.statusCode(), created.body());
        Matcher secret = SECRET.matcher(created.body());
        assertTrue(secret.find());
        return secret.group();
    }

    private static Map<String, String> fields(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void keysCreatedHereAreTheKeysOfTheApiAndBack() {
        Browser browser = signedInVerified(unique());
        String gpm = gpmOf(browser);
        String expiry = INPUT.format(clock.instant().plus(Duration.ofDays(30)));

        HttpResponse<String> created = createApiKey(browser, fields("name", "backend", "limit", "5",
                "limit_reset", "monthly", "expires_at", expiry));
        assertEquals(201, created.statusCode(), created.body());
        Matcher secret = GP_SECRET.matcher(created.body());
        assertTrue(secret.find(), created.body());
        String gp = secret.group();
        assertTrue(created.body().contains("shown only this once"));
        assertTrue(created.body().contains("aria-label=\"New API key\""), created.body());

        String list = browser.get("/keys").body();
        assertFalse(list.contains(gp), "the raw key is never shown again");
        assertFalse(list.contains("secret-panel"), "no empty panel either");
        assertTrue(list.contains("backend") && list.contains("gp-..." + gp.substring(gp.length() - 4)) && list.contains("$5.00")
                && list.contains("resets monthly"), list);
        String hash = hashes(list).get(0);

        Reply viaApi = get("/api/v1/keys/" + hash, gpm);
        assertEquals(200, viaApi.status(), viaApi.raw().body());
        assertEquals("backend", viaApi.data().get("name"));
        assertUsd("5", viaApi.data().get("limit"));
        assertEquals("monthly", viaApi.data().get("limit_reset"));
        assertEquals(expiry + ":00.000Z", viaApi.data().get("expires_at"));
        assertEquals(200, get("/v1/models", gp).status(), "the new key calls models");

        Reply fromApi = createKey(gpm, "{\"name\":\"made by the API\",\"limit\":1.5}");
        assertTrue(browser.get("/keys").body().contains("made by the API"), "keys of the API show here");

        HttpResponse<String> edit = browser.get("/keys/" + hash);
        assertEquals(200, edit.statusCode());
        assertTrue(edit.body().contains("value=\"5\"") && edit.body().contains("value=\"" + expiry + "\""),
                edit.body());
        HttpResponse<String> saved = browser.post("/keys/" + hash, fields("csrf", csrfOf(edit.body()),
                "name", "backend v2", "limit", "7.25", "limit_reset", "daily", "expires_at", "", "disabled", "true"));
        assertEquals(303, saved.statusCode(), saved.body());
        Reply afterEdit = get("/api/v1/keys/" + hash, gpm);
        assertEquals("backend v2", afterEdit.data().get("name"));
        assertUsd("7.25", afterEdit.data().get("limit"));
        assertEquals("daily", afterEdit.data().get("limit_reset"));
        assertEquals(null, afterEdit.data().get("expires_at"));
        assertEquals(Boolean.TRUE, afterEdit.data().get("disabled"));
        assertEquals(401, get("/v1/models", gp).status(), "a disabled key is refused at once");

        String page = browser.get("/keys").body();
        assertEquals(303, browser.post("/keys/" + hash + "/enable", fields("csrf", csrfOf(page))).statusCode());
        assertEquals(Boolean.FALSE, get("/api/v1/keys/" + hash, gpm).data().get("disabled"));
        assertEquals(200, get("/v1/models", gp).status());

        edit = browser.get("/keys/" + hash);
        assertEquals(303, browser.post("/keys/" + hash, fields("csrf", csrfOf(edit.body()), "name", "backend v2",
                "limit", "", "limit_reset", "", "expires_at", "")).statusCode());
        assertEquals(null, get("/api/v1/keys/" + hash, gpm).data().get("limit"), "an emptied limit is removed");

        page = browser.get("/keys").body();
        assertEquals(303, browser.post("/keys/" + hash + "/delete", fields("csrf", csrfOf(page))).statusCode());
        assertEquals(404, get("/api/v1/keys/" + hash, gpm).status());
        assertEquals(401, get("/v1/models", gp).status());
        assertFalse(browser.get("/keys").body().contains("backend v2"));
        assertEquals(200, get("/api/v1/keys/" + fromApi.data().get("hash"), gpm).status(), "the other key stays");
        // As the JSON API: any number of decimals, rounded half-up to the micro-dollar (was refused past 12).
        assertEquals(201, createApiKey(browser, fields("name", "many-decimals", "limit", "0.30000000000000004"))
                .statusCode());
    }

    @Test
    void invalidInputIsRefusedWithTheReasonAndCreatesNothing() {
        Browser browser = signedInVerified(unique());
        HttpResponse<String> resetAlone = createApiKey(browser, fields("name", "x", "limit", "",
                "limit_reset", "weekly"));
        assertEquals(400, resetAlone.statusCode());
        assertTrue(resetAlone.body().contains("A reset period needs a limit"), resetAlone.body());
        assertTrue(resetAlone.body().contains("value=\"x\""), "what was typed is kept");

        HttpResponse<String> past = createApiKey(browser, fields("name", "x", "expires_at",
                INPUT.format(clock.instant().minus(Duration.ofDays(1)))));
        assertEquals(400, past.statusCode());
        assertTrue(past.body().contains("The expiry must lie in the future"), past.body());

        for (String limit : List.of("-1", "0", "abc", "0.0000001", "1e20")) {
            HttpResponse<String> bad = createApiKey(browser, fields("name", "x", "limit", limit));
            assertEquals(400, bad.statusCode(), limit);
        }
        assertEquals(400, createApiKey(browser, fields("name", " ")).statusCode());
        assertEquals(400, createApiKey(browser, fields("name", "x", "limit_reset", "hourly")).statusCode());
        assertTrue(hashes(browser.get("/keys").body()).isEmpty(), "nothing was created");
    }

    @Test
    void formsWithoutTheSessionsTokenChangeNothing() {
        Browser browser = signedInVerified(unique());
        assertEquals(403, browser.post("/keys", fields("name", "forged")).statusCode());
        assertEquals(403, browser.post("/keys", fields("csrf", "0".repeat(64), "name", "forged")).statusCode());
        assertEquals(201, createApiKey(browser, fields("name", "real")).statusCode());
        String hash = hashes(browser.get("/keys").body()).get(0);
        assertEquals(403, browser.post("/keys/" + hash + "/delete", fields("csrf", "1".repeat(64))).statusCode());
        assertEquals(403, browser.post("/keys/" + hash, fields("name", "renamed")).statusCode());
        String page = browser.get("/keys").body();
        assertTrue(page.contains("real") && !page.contains("forged") && !page.contains("renamed"));
        assertEquals(1, hashes(page).size());
    }

    @Test
    void untilVerifiedThePageExplainsAndNothingCanBeCreated() {
        String email = unique();
        Browser browser = new Browser();
        assertEquals(200, signUp(browser, email, PASSWORD).statusCode());
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode());
        HttpResponse<String> page = browser.get("/keys");
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("Confirm your e-mail address first"), page.body());
        HttpResponse<String> refused = browser.post("/keys", fields("csrf", csrfOf(page.body()), "name", "early"));
        assertEquals(403, refused.statusCode());
        assertFalse(GP_SECRET.matcher(refused.body()).find(), "no key");
    }

    @Test
    void signedOutVisitorsAreSentToSignIn() {
        Browser stranger = new Browser();
        assertEquals("/login", location(stranger.get("/keys")));
        assertEquals("/login", location(stranger.get("/keys/" + "a".repeat(64))));
        assertEquals("/login", location(stranger.post("/keys", fields("name", "x"))));
    }

    @Test
    void anotherAccountsKeysAreNeitherVisibleNorChangeable() {
        Browser alice = signedInVerified(unique());
        Browser mallory = signedInVerified(unique());
        assertEquals(201, createApiKey(alice, fields("name", "alice-secret-key", "limit", "3")).statusCode());
        String aliceHash = hashes(alice.get("/keys").body()).get(0);
        String guessed = HexFormat.of().formatHex(new SecureRandom().generateSeed(32));

        String malloryPage = mallory.get("/keys").body();
        assertFalse(malloryPage.contains("alice-secret-key") || malloryPage.contains(aliceHash));
        for (String target : List.of(aliceHash, guessed, "not-a-hash", aliceHash.toUpperCase())) {
            HttpResponse<String> view = mallory.get("/keys/" + target);
            assertEquals(404, view.statusCode(), target);
            assertFalse(view.body().contains("alice-secret-key"));
            String token = csrfOf(mallory.get("/keys").body());
            assertEquals(404, mallory.post("/keys/" + target, fields("csrf", token, "name", "pwned", "disabled",
                    "true")).statusCode(), target);
            for (String action : List.of("disable", "enable", "delete")) {
                assertEquals(404, mallory.post("/keys/" + target + "/" + action, fields("csrf", token))
                        .statusCode(), action + " " + target);
            }
        }
        String alicePage = alice.get("/keys").body();
        assertTrue(alicePage.contains("alice-secret-key") && alicePage.contains("state-enabled")
                && !alicePage.contains("pwned"), "alice's key is untouched");
        assertEquals(200, alice.get("/keys/" + aliceHash).statusCode());
    }
}
