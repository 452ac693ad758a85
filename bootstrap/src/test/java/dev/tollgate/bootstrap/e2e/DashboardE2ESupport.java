package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
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

/**
 * Base of the dashboard's end-to-end tests: a {@link Browser} without JavaScript (forms, cookies, redirects, each
 * with its own cookie jar) and the steps every test needs — sign up, confirm through the outbox (no SMTP
 * configured), sign in.
 */
abstract class DashboardE2ESupport extends GatewayE2ETest {


    static final String PASSWORD = "correct horse battery staple";
    static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([0-9a-f]{64})\"");
    static final Pattern SECRET = Pattern.compile("gpm-[0-9A-Za-z]{38}");
    static final Pattern KEY_ACTION = Pattern.compile(
            "action=\"/settings/management-keys/([0-9a-f-]{36})/(disable|enable|delete)\"");
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).build();

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        // Every request of these tests comes from 127.0.0.1: the per-IP limits are the unit tests' business.
        properties.put("tollgate.dashboard.login.per-ip", "100000");
        properties.put("tollgate.dashboard.mail.per-ip", "100000");
        return properties;
    }

    /** A browser: its own cookie jar, no JavaScript. */
    final class Browser {
        final Map<String, String> cookies = new LinkedHashMap<>();
        final Map<String, String> headers = new LinkedHashMap<>();

        HttpResponse<String> get(String path) {
            return send(HttpRequest.newBuilder(uri(path)).GET());
        }

        HttpResponse<String> post(String path, Map<String, String> form) {
            String body = form.entrySet().stream()
                    .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                    .collect(Collectors.joining("&"));
            return send(HttpRequest.newBuilder(uri(path))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
        }

        /** Opens {@code page}, fills the form found there with its own token plus {@code fields}, submits it. */
        HttpResponse<String> submit(String page, String action, Map<String, String> fields) {
            HttpResponse<String> shown = get(page);
            assertEquals(200, shown.statusCode(), page + ": " + shown.body());
            Map<String, String> form = new LinkedHashMap<>();
            form.put("csrf", csrfOf(shown.body()));
            form.putAll(fields);
            return post(action, form);
        }

        String csrf(String page) {
            return csrfOf(get(page).body());
        }

        HttpResponse<String> send(HttpRequest.Builder request) {
            if (!cookies.isEmpty()) {
                request.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining("; ")));
            }
            headers.forEach(request::header);
            try {
                HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
                for (String setCookie : response.headers().allValues("set-cookie")) {
                    String pair = setCookie.split(";", 2)[0];
                    String name = pair.substring(0, pair.indexOf('='));
                    String value = pair.substring(pair.indexOf('=') + 1);
                    if (value.isEmpty() || setCookie.toLowerCase().contains("max-age=0")) {
                        cookies.remove(name);
                    } else {
                        cookies.put(name, value);
                    }
                }
                return response;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    URI uri(String path) {
        return URI.create(server.getURL() + path);
    }

    static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    static String csrfOf(String html) {
        Matcher m = CSRF.matcher(html);
        assertTrue(m.find(), "the page has a form token: " + html);
        return m.group(1);
    }

    static String location(HttpResponse<String> response) {
        return response.headers().firstValue("location").orElse(null);
    }

    static String unique() {
        return "dash-" + UUID.randomUUID() + "@example.test";
    }

    /** The newest outbox mail to {@code email}: its link (a local path). */
    String outboxLinkFor(String email) {
        Browser operator = new Browser();
        String html = operator.get("/outbox").body();
        int at = html.indexOf("To " + email);
        assertTrue(at > 0, "a mail to " + email + " is in the outbox: " + html);
        int start = html.lastIndexOf("<li", at);
        Matcher link = Pattern.compile("class=\"mail-link\" href=\"([^\"]+)\"").matcher(html.substring(start));
        assertTrue(link.find());
        return link.group(1).replace("&amp;", "&");
    }

    /** How many mails to {@code email} the outbox lists. */
    int mailsTo(String email) {
        String html = new Browser().get("/outbox").body();
        return (int) Pattern.compile(Pattern.quote("To " + email + "<")).matcher(html).results().count();
    }

    HttpResponse<String> signUp(Browser browser, String email, String password) {
        return browser.submit("/signup", "/signup", Map.of("email", email, "password", password,
                "password_repeat", password));
    }

    /** Confirms the address with its latest link and {@link #PASSWORD}, in a browser of its own (a mail reader). */
    void verify(String email) {
        HttpResponse<String> confirmed = confirm(email, PASSWORD);
        assertEquals(200, confirmed.statusCode(), confirmed.body());
        assertTrue(confirmed.body().contains("Your e-mail address is confirmed"));
    }

    /** Opens the address's latest link in a new browser and confirms it with {@code password}. */
    HttpResponse<String> confirm(String email, String password) {
        Browser mailReader = new Browser();
        String link = outboxLinkFor(email);
        assertTrue(link.startsWith("/verify?token="), link);
        HttpResponse<String> confirmPage = mailReader.get(link);
        assertEquals(200, confirmPage.statusCode());
        String token = link.substring(link.indexOf("token=") + 6);
        return mailReader.post("/verify", Map.of("csrf", csrfOf(confirmPage.body()), "token", token,
                "password", password));
    }

    HttpResponse<String> logIn(Browser browser, String email, String password) {
        return browser.submit("/login", "/login", Map.of("email", email, "password", password));
    }

    /** A verified account, signed in in a new browser. */
    Browser signedInVerified(String email) {
        Browser browser = new Browser();
        assertEquals(200, signUp(browser, email, PASSWORD).statusCode());
        verify(email);
        HttpResponse<String> in = logIn(browser, email, PASSWORD);
        assertEquals(303, in.statusCode(), in.body());
        return browser;
    }

    HttpResponse<String> createKey(Browser browser, String name) {
        return browser.submit("/settings/management-keys", "/settings/management-keys", Map.of("name", name));
    }

    static List<String> keyIds(String html) {
        List<String> ids = new ArrayList<>();
        Matcher m = KEY_ACTION.matcher(html);
        while (m.find()) {
            if (!ids.contains(m.group(1))) {
                ids.add(m.group(1));
            }
        }
        return ids;
    }

}
