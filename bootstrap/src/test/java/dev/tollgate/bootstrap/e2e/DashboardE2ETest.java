package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyName;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The account dashboard over real HTTP, as a browser without JavaScript uses it: forms, cookies, redirects. Each
 * {@link Browser} keeps its own cookies; the gateway's outbox (no SMTP configured) delivers the mails.
 */
@MicronautTest(transactional = false)
class DashboardE2ETest extends DashboardE2ESupport {

    @Test
    void signUpVerifySignInCreateAKeyUseItAndDisableIt() throws InterruptedException {
        String email = unique();
        Browser browser = new Browser();
        HttpResponse<String> sent = signUp(browser, email, PASSWORD);
        assertEquals(200, sent.statusCode(), sent.body());
        assertTrue(sent.body().contains("Check your inbox"));
        verify(email);

        HttpResponse<String> in = logIn(browser, email, PASSWORD);
        assertEquals(303, in.statusCode(), in.body());
        assertEquals("/", location(in));
        String setCookie = in.headers().allValues("set-cookie").stream()
                .filter(c -> c.startsWith("tollgate_session=")).findFirst().orElseThrow();
        assertTrue(setCookie.contains("HTTPOnly") || setCookie.contains("HttpOnly"), setCookie);
        assertTrue(setCookie.contains("SameSite=Lax"), setCookie);
        assertFalse(setCookie.contains("Secure"), "plain HTTP on loopback: no Secure attribute");

        HttpResponse<String> overview = browser.get("/");
        assertEquals(200, overview.statusCode());
        assertTrue(overview.body().contains(email) && overview.body().contains("Confirmed"), overview.body());

        HttpResponse<String> created = createKey(browser, "release bot");
        assertEquals(201, created.statusCode(), created.body());
        Matcher secret = SECRET.matcher(created.body());
        assertTrue(secret.find(), created.body());
        String gpm = secret.group();
        assertTrue(created.body().contains("shown only this once"));

        HttpResponse<String> again = browser.get("/settings/management-keys");
        assertFalse(again.body().contains(gpm), "the secret is never shown again");
        assertTrue(again.body().contains("release bot") && again.body().contains("gpm-..." + gpm.substring(gpm.length() - 4)));
        assertTrue(again.body().contains("data-label=\"Last used\">never<"), "not used yet");
        assertTrue(again.body().contains("data-label=\"Access\">read-write<")
                && again.body().contains("data-label=\"Expires\">never<"), "how the key was made shows");

        Reply apiKey = post("/api/v1/keys", gpm, "{\"name\":\"from the dashboard's key\"}");
        assertEquals(201, apiKey.status(), apiKey.raw().body());
        assertEquals(200, get("/api/v1/keys", gpm).status());

        String lastUsed = null;
        for (int i = 0; i < 50 && lastUsed == null; i++) {
            String page = browser.get("/settings/management-keys").body();
            if (!page.contains("data-label=\"Last used\">never<")) {
                lastUsed = page;
            } else {
                Thread.sleep(100);
            }
        }
        assertNotNull(lastUsed, "last use is recorded (off the request's path)");

        String id = keyIds(lastUsed).get(0);
        HttpResponse<String> disabled = browser.post("/settings/management-keys/" + id + "/disable",
                Map.of("csrf", csrfOf(lastUsed)));
        assertEquals(303, disabled.statusCode(), disabled.body());
        assertEquals(401, get("/api/v1/keys", gpm).status(), "a disabled key is refused at once");
        assertTrue(browser.get("/settings/management-keys").body().contains("state-disabled"));

        String page = browser.get("/settings/management-keys").body();
        assertEquals(303, browser.post("/settings/management-keys/" + id + "/enable", Map.of("csrf", csrfOf(page)))
                .statusCode());
        assertEquals(200, get("/api/v1/keys", gpm).status(), "enabled again");
        page = browser.get("/settings/management-keys").body();
        assertEquals(303, browser.post("/settings/management-keys/" + id + "/delete", Map.of("csrf", csrfOf(page)))
                .statusCode());
        assertEquals(401, get("/api/v1/keys", gpm).status(), "a deleted key never authenticates again");
        assertFalse(browser.get("/settings/management-keys").body().contains("release bot"));
    }

    @Test
    void untilVerifiedThePagesExplainThe403AndNoKeyCanBeCreated() {
        String email = unique();
        Browser browser = new Browser();
        signUp(browser, email, PASSWORD);
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode());
        String overview = browser.get("/").body();
        assertTrue(overview.contains("Not confirmed yet") && overview.contains("403"), overview);
        assertTrue(overview.contains("action=\"/verify/resend\""));
        String settings = browser.get("/settings/management-keys").body();
        assertTrue(settings.contains("Please verify your email address to access this feature"), settings);
        assertFalse(settings.contains("id=\"key-name\""), "no create form");

        HttpResponse<String> refused = browser.post("/settings/management-keys",
                Map.of("csrf", csrfOf(settings), "name", "sneaky"));
        assertEquals(403, refused.statusCode());
        assertFalse(browser.get("/settings/management-keys").body().contains("sneaky"));

        HttpResponse<String> resent = browser.post("/verify/resend", Map.of("csrf", csrfOf(settings)));
        assertEquals(200, resent.statusCode(), resent.body());
        verify(email);
        assertTrue(browser.get("/").body().contains("Confirmed"));
        assertEquals(201, createKey(browser, "now allowed").statusCode());
    }

    @Test
    void formsWithoutAValidTokenAreRefusedAndChangeNothing() {
        Browser browser = signedInVerified(unique());
        String page = createKey(browser, "kept").body();
        String id = keyIds(page).get(0);
        String anonymousToken = new Browser().csrf("/login");
        for (Map<String, String> form : List.of(Map.<String, String>of(), Map.of("csrf", ""),
                Map.of("csrf", "0".repeat(64)), Map.of("csrf", anonymousToken))) {
            assertEquals(403, browser.post("/settings/management-keys", plus(form, "name", "forged")).statusCode());
            assertEquals(403, browser.post("/settings/management-keys/" + id + "/disable", form).statusCode());
            assertEquals(403, browser.post("/settings/management-keys/" + id + "/delete", form).statusCode());
        }
        Browser other = signedInVerified(unique());
        String othersToken = other.csrf("/settings/management-keys");
        HttpResponse<String> crossSession = browser.post("/settings/management-keys/" + id + "/disable",
                Map.of("csrf", othersToken));
        assertEquals(403, crossSession.statusCode(), "a token of another session is no token");
        assertTrue(crossSession.body().contains("This form has expired"));
        String after = browser.get("/settings/management-keys").body();
        assertFalse(after.contains("forged"));
        assertTrue(after.contains("state-active"), "still active");

        Browser signedOut = new Browser();
        signedOut.get("/login");
        assertEquals(403, signedOut.post("/login", Map.of("email", "a@example.test", "password", PASSWORD))
                .statusCode(), "sign-in needs the form's token too (login CSRF)");
        assertEquals(403, signedOut.post("/signup", Map.of("csrf", "0".repeat(64), "email", "b@example.test",
                "password", PASSWORD, "password_repeat", PASSWORD)).statusCode());
    }

    @Test
    void aTwentySixthActiveManagementKeyIsRefusedAndThePageExplainsTheLimit() {
        String email = unique();
        Browser browser = signedInVerified(email);
        for (int i = 1; i <= 25; i++) {
            createManagementKey.create(new CreateManagementKeyCommand(new Email(email), new KeyName("bulk " + i),
                    ManagementAccess.READ_WRITE, null));
        }
        String full = browser.get("/settings/management-keys").body();
        assertEquals(25, keyIds(full).size(), full);
        assertTrue(full.contains("25 of at most 25 active."), full);
        assertTrue(full.contains("This account has 25 active management keys, the most it may have (25). "
                + "Disable or delete one to create another."), full);
        assertFalse(full.contains("id=\"key-name\"") || full.contains("action=\"/settings/management-keys\""),
                "no create form at the limit");

        HttpResponse<String> refused = browser.post("/settings/management-keys",
                Map.of("csrf", csrfOf(full), "name", "the twenty-sixth"));
        assertEquals(409, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("This account already has 25 active management keys, the most it may "
                + "have. Disable or delete one first."), refused.body());
        assertFalse(SECRET.matcher(refused.body()).find(), "no key was issued");
        String after = browser.get("/settings/management-keys").body();
        assertEquals(25, keyIds(after).size());
        assertFalse(after.contains("the twenty-sixth"));

        String disabledId = keyIds(after).get(0);
        assertEquals(303, browser.post("/settings/management-keys/" + disabledId + "/disable",
                Map.of("csrf", csrfOf(after))).statusCode());
        String roomAgain = browser.get("/settings/management-keys").body();
        assertTrue(roomAgain.contains("24 of at most 25 active.") && roomAgain.contains("id=\"key-name\""), roomAgain);
        assertEquals(201, createKey(browser, "the twenty-sixth").statusCode(), "a disabled key makes room");

        String fullAgain = browser.get("/settings/management-keys").body();
        HttpResponse<String> notEnabled = browser.post("/settings/management-keys/" + disabledId + "/enable",
                Map.of("csrf", csrfOf(fullAgain)));
        assertEquals(409, notEnabled.statusCode(), notEnabled.body());
        assertTrue(notEnabled.body().contains("This account already has 25 active management keys. Disable or "
                + "delete one before enabling another."), notEnabled.body());
        assertTrue(browser.get("/settings/management-keys").body().contains("25 of at most 25 active."));
    }

    @Test
    void signOutVerifyAndResendWithoutTheFormTokenAreRefusedAndChangeNothing() {
        String email = unique();
        Browser browser = new Browser();
        assertEquals(200, signUp(browser, email, PASSWORD).statusCode());
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode());
        String session = browser.cookies.get("tollgate_session");
        Browser other = signedInVerified(unique());
        String anonymousToken = new Browser().csrf("/login");
        List<Map<String, String>> forged = List.of(Map.of(), Map.of("csrf", ""), Map.of("csrf", "0".repeat(64)),
                Map.of("csrf", anonymousToken), Map.of("csrf", other.csrf("/")));

        for (Map<String, String> form : forged) {
            HttpResponse<String> logout = browser.post("/logout", form);
            assertEquals(403, logout.statusCode(), "logout " + form);
            assertTrue(logout.body().contains("This form has expired"), logout.body());
            HttpResponse<String> resend = browser.post("/verify/resend", form);
            assertEquals(403, resend.statusCode(), "resend " + form);
            assertTrue(resend.body().contains("This form has expired"), resend.body());
        }
        assertEquals(session, browser.cookies.get("tollgate_session"), "the cookie was not cleared");
        HttpResponse<String> stillIn = browser.get("/");
        assertEquals(200, stillIn.statusCode(), "the session still works");
        assertTrue(stillIn.body().contains(email) && stillIn.body().contains("Not confirmed yet"));
        assertEquals(1, mailsTo(email), "no new mail was sent");

        String link = outboxLinkFor(email);
        String token = link.substring(link.indexOf("token=") + 6);
        Browser mailReader = new Browser();
        assertEquals(200, mailReader.get(link).statusCode());
        String othersFormToken = new Browser().csrf(link);
        for (Map<String, String> form : List.of(Map.<String, String>of(), Map.of("csrf", "0".repeat(64)),
                Map.of("csrf", othersFormToken), Map.of("csrf", browser.csrf("/")))) {
            Map<String, String> withToken = new LinkedHashMap<>(form);
            withToken.put("token", token);
            HttpResponse<String> refused = mailReader.post("/verify", withToken);
            assertEquals(403, refused.statusCode(), "verify " + form);
            assertTrue(refused.body().contains("This form has expired"), refused.body());
            assertFalse(refused.body().contains("Your e-mail address is confirmed"));
        }
        assertTrue(browser.get("/").body().contains("Not confirmed yet"), "the genuine link was not used up");

        HttpResponse<String> resent = browser.post("/verify/resend", Map.of("csrf", browser.csrf("/")));
        assertEquals(200, resent.statusCode(), resent.body());
        assertEquals(2, mailsTo(email), "with the token the mail goes out");
        verify(email);
        String confirmed = browser.get("/").body();
        assertTrue(confirmed.contains("Confirmed") && !confirmed.contains("Not confirmed yet"), confirmed);
        assertEquals(303, browser.post("/logout", Map.of("csrf", browser.csrf("/"))).statusCode());
        assertFalse(browser.cookies.containsKey("tollgate_session"), "with the token sign-out works");
        assertEquals("/login", location(browser.get("/")));
    }

    @Test
    void withoutSmtpTheVerificationLinkIsLoggedAsWellAsShownInTheOutbox() {
        String email = unique();
        assertEquals(200, signUp(new Browser(), email, PASSWORD).statusCode());
        String outboxLink = outboxLinkFor(email);
        assertTrue(outboxLink.startsWith("/verify?token="), outboxLink);

        String prefix = "Outbox (no SMTP configured): mail to " + email + " \"Confirm your e-mail address for "
                + "Tollgate\" with link ";
        List<String> logged = CapturedLogs.lines().stream().filter(l -> l.startsWith(prefix)).toList();
        assertEquals(1, logged.size(), "one log line for the one mail: " + logged);
        URI loggedLink = URI.create(logged.get(0).substring(prefix.length()));
        assertTrue(loggedLink.isAbsolute(), "the log has the whole link: " + loggedLink);
        assertEquals(outboxLink, loggedLink.getRawPath() + "?" + loggedLink.getRawQuery(),
                "the log carries the outbox's link");
        verify(email);
    }

    private static Map<String, String> plus(Map<String, String> form, String name, String value) {
        Map<String, String> all = new LinkedHashMap<>(form);
        all.put(name, value);
        return all;
    }

    @Test
    void htmxGetsRefusedFormsAs200WithTheRealStatusInAHeader() {
        String email = unique();
        signUp(new Browser(), email, PASSWORD);
        Browser plain = new Browser();
        HttpResponse<String> refused = logIn(plain, email, "not the password");
        assertEquals(400, refused.statusCode(), "a client without htmx sees the real status");
        assertTrue(refused.headers().firstValue("X-Tollgate-Status").isEmpty());

        Browser boosted = new Browser();
        boosted.headers.put("HX-Request", "true");
        HttpResponse<String> swapped = logIn(boosted, email, "not the password");
        assertEquals(200, swapped.statusCode(), "no failed resource in the browser's console");
        assertEquals("400", swapped.headers().firstValue("X-Tollgate-Status").orElse(""));
        assertEquals(refused.body().replaceAll("name=\"csrf\" value=\"[^\"]*\"", ""),
                swapped.body().replaceAll("name=\"csrf\" value=\"[^\"]*\"", ""), "the same page");
        assertTrue(swapped.body().contains("The e-mail address or password is not correct."));
        HttpResponse<String> signedIn = logIn(boosted, email, PASSWORD);
        assertEquals(303, signedIn.statusCode(), "success is unchanged");
        assertTrue(signedIn.headers().firstValue("X-Tollgate-Status").isEmpty());
        assertEquals(200, boosted.get("/").statusCode());
    }

    @Test
    void brokenFormEncodingsAndControlCharactersAre400sNot500s() {
        Browser browser = new Browser();
        for (String path : List.of("/login", "/signup", "/verify")) {
            HttpResponse<String> broken = browser.send(HttpRequest.newBuilder(uri(path))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("email=%zz&password=%")));
            assertEquals(400, broken.statusCode(), path + ": " + broken.body());
        }
        HttpResponse<String> nul = logIn(browser, "nul\u0000@example.com", "whatever password");
        assertEquals(400, nul.statusCode(), nul.body());
        HttpResponse<String> escape = signUp(browser, "x\u001b[2K@example.com", PASSWORD);
        assertEquals(400, escape.statusCode(), escape.body());
        Browser owner = signedInVerified(unique());
        assertEquals(200, owner.get("/usage?model=a%00b").statusCode());
        assertEquals(200, owner.get("/usage/activity.csv?model=a%00b").statusCode());
        HttpResponse<String> tiny = owner.submit("/keys", "/keys", Map.of("name", "tiny", "limit", "1e-100000000"));
        assertEquals(400, tiny.statusCode(), "an exponent is no amount, refused at once");
    }

    @Test
    void unknownAddressAndWrongPasswordAnswerAlike() {
        String email = unique();
        Browser owner = new Browser();
        signUp(owner, email, PASSWORD);
        Browser visitor = new Browser();
        String unknown = "nobody-" + UUID.randomUUID() + "@example.test";
        HttpResponse<String> wrongPassword = logIn(visitor, email, "not the password");
        HttpResponse<String> unknownAddress = logIn(visitor, unknown, "not the password");
        assertEquals(400, wrongPassword.statusCode());
        assertEquals(wrongPassword.statusCode(), unknownAddress.statusCode());
        assertEquals(wrongPassword.body().replace(email, "ADDRESS"), unknownAddress.body().replace(unknown, "ADDRESS"));
        assertTrue(wrongPassword.body().contains("The e-mail address or password is not correct."));

        verify(email);
        Browser signUpper = new Browser();
        HttpResponse<String> taken = signUp(signUpper, email, "another password entirely");
        String fresh = unique();
        HttpResponse<String> free = signUp(signUpper, fresh, "another password entirely");
        assertEquals(200, taken.statusCode());
        assertEquals(taken.statusCode(), free.statusCode());
        assertEquals(taken.body().replace(email, "ADDRESS"), free.body().replace(fresh, "ADDRESS"),
                "sign-up never tells whether an address is registered");
        assertTrue(outboxLinkFor(email).equals("/login"), "the owner got a notice, not a link");
        assertEquals(303, logIn(new Browser(), email, PASSWORD).statusCode(), "the password was not replaced");
    }

    @Test
    void whoeverSignsUpFirstWithSomeoneElsesAddressCannotKeepTheAccount() {
        String victim = unique();
        String mallorysPassword = "mallory's own passphrase";
        Browser mallory = new Browser();
        assertEquals(200, signUp(mallory, victim, mallorysPassword).statusCode());
        assertEquals(303, logIn(mallory, victim, mallorysPassword).statusCode(), "an unconfirmed account signs in");

        // The owner of the mailbox cannot confirm Mallory's sign-up without Mallory's password.
        HttpResponse<String> refused = confirm(victim, PASSWORD);
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("sign up once more"), refused.body());

        // Signing up again replaces the pending password and ends Mallory's session; the owner confirms.
        Browser owner = new Browser();
        assertEquals(200, signUp(owner, victim, PASSWORD).statusCode());
        assertEquals("/login", location(mallory.get("/")), "Mallory's session ended");
        assertEquals(400, logIn(new Browser(), victim, mallorysPassword).statusCode(), "her password is gone");
        HttpResponse<String> wrongOne = confirm(victim, mallorysPassword);
        assertEquals(400, wrongOne.statusCode(), "the latest link needs the latest password");
        verify(victim);
        assertEquals(303, logIn(owner, victim, PASSWORD).statusCode());
        assertTrue(owner.get("/").body().contains("Confirmed"));

        // Once confirmed, a sign-up with the address changes nothing: the owner is told, nobody else gets in.
        assertEquals(200, signUp(mallory, victim, mallorysPassword).statusCode());
        assertEquals("/login", outboxLinkFor(victim), "a notice, not a link");
        assertEquals(400, logIn(mallory, victim, mallorysPassword).statusCode());
    }

    @Test
    void signInAttemptsPerAddressAreLimited() {
        String email = unique();
        Browser browser = new Browser();
        signUp(browser, email, PASSWORD);
        for (int i = 0; i < 10; i++) {
            assertEquals(400, logIn(browser, email, "wrong password " + i).statusCode());
        }
        HttpResponse<String> limited = logIn(browser, email, PASSWORD);
        assertEquals(429, limited.statusCode(), limited.body());
        assertTrue(Long.parseLong(limited.headers().firstValue("retry-after").orElseThrow()) > 0);
        assertTrue(limited.body().contains("Too many"));
        assertFalse(browser.cookies.containsKey("tollgate_session"));
        clock.advance(Duration.ofMinutes(16));
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode(), "the window moves on");
    }

    @Test
    void oneAccountNeverSeesOrChangesAnothersKeys() {
        Browser alice = signedInVerified(unique());
        Browser bob = signedInVerified(unique());
        HttpResponse<String> bobsCreated = createKey(bob, "bobs-secret-key-name");
        Matcher secret = SECRET.matcher(bobsCreated.body());
        assertTrue(secret.find());
        String bobsGpm = secret.group();
        String bobsId = keyIds(bob.get("/settings/management-keys").body()).get(0);
        createKey(alice, "alices key");

        String alicesPage = alice.get("/settings/management-keys").body();
        assertFalse(alicesPage.contains("bobs-secret-key-name"));
        assertFalse(alicesPage.contains(bobsGpm.substring(0, 7)));
        assertFalse(alicesPage.contains(bobsId));
        assertEquals(1, keyIds(alicesPage).size());

        for (String action : List.of("disable", "delete", "enable")) {
            HttpResponse<String> refused = alice.post("/settings/management-keys/" + bobsId + "/" + action,
                    Map.of("csrf", csrfOf(alice.get("/settings/management-keys").body())));
            assertEquals(404, refused.statusCode(), action);
            assertTrue(refused.body().contains("There is no such management key in your account."));
        }
        assertEquals(404, alice.post("/settings/management-keys/not-a-uuid/disable",
                Map.of("csrf", csrfOf(alice.get("/settings/management-keys").body()))).statusCode());
        assertEquals(200, get("/api/v1/keys", bobsGpm).status(), "Bob's key still works");
        assertTrue(bob.get("/settings/management-keys").body().contains("state-active"));
    }

    @Test
    void signInStartsANewSessionAndSignOutEndsIt() {
        String email = unique();
        Browser browser = new Browser();
        signUp(browser, email, PASSWORD);
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode());
        String first = browser.cookies.get("tollgate_session");
        assertEquals("/", location(browser.get("/login")), "signed in, /login sends you to the overview");
        assertEquals(303, browser.post("/login", Map.of("csrf", browser.csrf("/"), "email", email,
                "password", PASSWORD)).statusCode());
        String second = browser.cookies.get("tollgate_session");
        assertNotEquals(first, second, "the session id is rotated on sign-in");
        Browser replay = new Browser();
        replay.cookies.put("tollgate_session", first);
        assertEquals("/login", location(replay.get("/")), "the old session ended");

        HttpResponse<String> out = browser.post("/logout", Map.of("csrf", browser.csrf("/")));
        assertEquals(303, out.statusCode());
        assertFalse(browser.cookies.containsKey("tollgate_session"), "the cookie is cleared");
        Browser stolen = new Browser();
        stolen.cookies.put("tollgate_session", second);
        assertEquals(303, stolen.get("/").statusCode());
        assertEquals("/login", location(stolen.get("/settings/management-keys")), "a signed-out session is dead");
    }

    @Test
    void aSessionEndsAfterTwelveIdleHours() {
        Browser browser = signedInVerified(unique());
        assertEquals(200, browser.get("/").statusCode());
        clock.advance(Duration.ofHours(11));
        assertEquals(200, browser.get("/").statusCode());
        clock.advance(Duration.ofHours(12).plusMinutes(1));
        HttpResponse<String> expired = browser.get("/");
        assertEquals(303, expired.statusCode());
        assertEquals("/login", location(expired));
    }

    @Test
    void aTamperedVerificationLinkVerifiesNothing() {
        String email = unique();
        Browser browser = new Browser();
        signUp(browser, email, PASSWORD);
        String link = outboxLinkFor(email);
        String token = link.substring(link.indexOf("token=") + 6);
        String tampered = token.substring(0, token.length() - 1) + (token.endsWith("a") ? "b" : "a");
        HttpResponse<String> refused = browser.post("/verify", Map.of("csrf", browser.csrf("/verify?token=x"),
                "token", tampered, "password", PASSWORD));
        assertEquals(400, refused.statusCode());
        assertTrue(refused.body().contains("This link is not valid"));
        assertEquals(303, logIn(browser, email, PASSWORD).statusCode());
        assertTrue(browser.get("/").body().contains("Not confirmed yet"));
    }

    @Test
    void theOutboxAnswersOnlyThisMachineWithoutForwardingHeaders() {
        Browser local = new Browser();
        assertEquals(200, local.get("/outbox").statusCode());
        Browser proxied = new Browser();
        proxied.headers.put("X-Forwarded-For", "203.0.113.50");
        assertEquals(404, proxied.get("/outbox").statusCode());
        Browser forwarded = new Browser();
        forwarded.headers.put("Forwarded", "for=203.0.113.50");
        assertEquals(404, forwarded.get("/outbox").statusCode());
        // DNS rebinding: a page whose site's name now points at 127.0.0.1 connects from loopback with its own name.
        assertEquals(404, outboxStatusWithHost("attacker.example:" + server.getPort()));
        assertEquals(404, outboxStatusWithHost("127.0.0.1.nip.io:" + server.getPort()));
        assertEquals(200, outboxStatusWithHost("localhost:" + server.getPort()));
        assertEquals(200, outboxStatusWithHost("127.0.0.1:" + server.getPort()));
    }

    /** GET /outbox over a plain socket from loopback, with a Host header the JDK's client would not let us set. */
    private int outboxStatusWithHost(String host) {
        try (Socket socket = new Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /outbox HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 "), answer);
            return Integer.parseInt(answer.substring(9, 12));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void pagesCarrySecurityHeadersAndTheirAssetsComeFromTheJar() {
        Browser browser = new Browser();
        HttpResponse<String> page = browser.get("/login");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("text/html"));
        String csp = page.headers().firstValue("content-security-policy").orElseThrow();
        assertTrue(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), csp);
        assertEquals("no-store", page.headers().firstValue("cache-control").orElseThrow());
        assertEquals("nosniff", page.headers().firstValue("x-content-type-options").orElseThrow());
        assertEquals("no-referrer", page.headers().firstValue("referrer-policy").orElseThrow());
        assertFalse(page.body().contains("http://") || page.body().contains("https://"),
                "no external resource: " + page.body());
        for (String asset : List.of("/assets/dashboard.css", "/assets/dashboard.js",
                "/webjars/htmx.org/2.0.4/dist/htmx.min.js")) {
            HttpResponse<String> served = browser.get(asset);
            assertEquals(200, served.statusCode(), asset);
            assertTrue(served.body().length() > 500, asset);
        }
        // An audit: directories answered an empty 200, and every file of the WebJar was served.
        for (String other : List.of("/webjars/htmx.org/", "/webjars/htmx.org/2.0.4/dist/", "/assets/",
                "/webjars/htmx.org/2.0.4/dist/ext/debug.js")) {
            assertEquals(404, browser.get(other).statusCode(), other);
        }
        assertEquals("/login", location(browser.get("/")), "signed out, the overview sends you to sign in");
        assertEquals("/login", location(browser.get("/settings/management-keys")));
        // Every answer under a dashboard path carries the headers (redirects and a page no route serves too),
        // the model API's answers do not.
        for (String path : List.of("/settings/management-keys", "/keys/no-such-key", "//keys")) {
            HttpResponse<String> answer = browser.get(path);
            assertEquals("no-store", answer.headers().firstValue("cache-control").orElse(null), path);
            assertTrue(answer.headers().firstValue("content-security-policy").isPresent(), path);
        }
        HttpResponse<String> api = browser.get("/v1/models");
        assertEquals(401, api.statusCode(), "no key");
        assertFalse(api.headers().firstValue("content-security-policy").isPresent());
    }
}
