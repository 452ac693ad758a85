package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.CreditAccountUseCase;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Usage, activity, CSV export and balance over HTTP: a request made with a key created on the dashboard shows up
 * with its exact cost in the chart, the activity table, the CSV and the balance's ledger (with the operator's
 * credit); filters narrow it; another account sees none of it, even with the first account's key hash in the URL.
 */
@MicronautTest(transactional = false)
class DashboardUsageE2ETest extends DashboardE2ESupport {

    private static final Pattern GP_SECRET = Pattern.compile("gp-[0-9A-Za-z]{38}");
    private static final Pattern KEY_HASH = Pattern.compile("href=\"/keys/([0-9a-f]{64})\"");
    private static final Pattern REQUEST_ID_CELL = Pattern.compile("class=\"mono request-id\">([^<]+)</td>");

    @Inject
    CreditAccountUseCase credit;

    /** A verified, signed-in account with $5 from the operator and one API key; its raw key and hash. */
    record Customer(String email, Browser browser, String gp, String hash) {
    }

    private Customer customer(String keyName) {
        String email = unique();
        Browser browser = signedInVerified(email);
        credit.credit(new Email(email), Usd.ofMicros(5_000_000));
        HttpResponse<String> created = browser.submit("/keys", "/keys", Map.of("name", keyName));
        assertEquals(201, created.statusCode(), created.body());
        Matcher secret = GP_SECRET.matcher(created.body());
        assertTrue(secret.find());
        Matcher hash = KEY_HASH.matcher(browser.get("/keys").body());
        assertTrue(hash.find());
        return new Customer(email, browser, secret.group(), hash.group(1));
    }

    private String chat(String gp, String model) {
        return completion(gp, model, "").header("x-request-id");
    }

    /** A chat completion; {@code moreFields} (e.g. {@code "max_tokens":24,}) go before the messages. */
    private Reply completion(String gp, String model, String moreFields) {
        Reply reply = post("/v1/chat/completions", gp, "{\"model\":\"" + model + "\"," + moreFields
                + "\"messages\":[{\"role\":\"user\",\"content\":\"What does the dashboard show?\"}]}");
        assertEquals(200, reply.status(), reply.raw().body());
        return reply;
    }

    private static long costMicros(String requestId) {
        try (Connection c = GatewayE2ETest.database();
                PreparedStatement q = c.prepareStatement("SELECT cost_micros FROM request_ledger WHERE request_id = ?")) {
            q.setString(1, requestId);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The usage page drawn once the request's ledger row is written (settlement follows the answer) and counted in
     * today's bar: the activity table and the charts are read by separate queries, so a page drawn while the row
     * was being committed may show it in one and not yet in the other.
     */
    private String usageShowing(Browser browser, String requestId) throws InterruptedException {
        return usageShowing(browser, requestId, "");
    }

    /** The same, drawn once it also shows {@code text} (the balance is one more query of its own). */
    private String usageShowing(Browser browser, String requestId, String text) throws InterruptedException {
        String today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();
        String page = "";
        for (int i = 0; i < 100; i++) {
            page = browser.get("/usage").body();
            if (page.contains(requestId) && !page.contains(today + ": $0.00 (0 requests)") && page.contains(text)) {
                return page;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("request " + requestId + " never appeared in the chart and activity of /usage"
                + (text.isEmpty() ? "" : " together with '" + text + "'") + ": " + page);
    }

    private static String money(long micros) {
        BigDecimal dollars = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        return "$" + (dollars.scale() < 2 ? dollars.setScale(2) : dollars).toPlainString();
    }

    @Test
    void aRequestShowsWithItsCostInTheChartTheActivityTheCsvAndTheBalance() throws InterruptedException {
        Customer alice = customer("usage key");
        String requestId = chat(alice.gp(), "tollgate/simulator-priced");
        usageShowing(alice.browser(), requestId);
        long cost = costMicros(requestId);
        assertTrue(cost > 0, "the priced model costs something");
        String page = usageShowing(alice.browser(), requestId, money(5_000_000 - cost));
        String today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();

        assertTrue(page.contains("data-day=\"" + today + "\" data-value=\"" + money(cost) + "\""), page);
        assertTrue(page.contains(today + ": " + money(cost) + " (1 request)"), "the bar's tooltip");
        assertTrue(page.contains("usage key") && page.contains("tollgate/simulator-priced")
                && page.contains(">" + money(cost) + "<") && page.contains("completed"), page);
        assertTrue(page.contains("<td data-label=\"Provider\">simulator</td>"), "the provider");
        assertTrue(page.contains(money(5_000_000 - cost)), "the balance after the request");

        String otherModel = alice.browser().get("/usage?model=tollgate/simulator-free").body();
        assertFalse(otherModel.contains(requestId), "filtered by another model");
        String sameKey = alice.browser().get("/usage?key=" + alice.hash() + "&model=tollgate/simulator-priced").body();
        assertTrue(sameKey.contains(requestId) && sameKey.contains("selected"), "filtered by its key and model");

        HttpResponse<String> csv = alice.browser().get("/usage/activity.csv");
        assertEquals(200, csv.statusCode());
        assertTrue(csv.headers().firstValue("content-type").orElse("").startsWith("text/csv"));
        assertEquals("attachment; filename=\"tollgate-activity-" + today + ".csv\"",
                csv.headers().firstValue("content-disposition").orElse(""));
        List<String> lines = csv.body().lines().toList();
        assertEquals("admitted_at,finished_at,request_id,key_name,key_label,model,provider,prompt_tokens,"
                + "completion_tokens,total_tokens,cost_usd,status,latency_ms", lines.get(0));
        String row = lines.stream().filter(l -> l.contains(requestId)).findFirst().orElseThrow();
        assertTrue(row.contains(",usage key,") && row.contains(",tollgate/simulator-priced,simulator,")
                && row.contains("," + BigDecimal.valueOf(cost, 6).toPlainString() + ",completed,"), row);
        assertTrue(csv.body().endsWith("\r\n"));
        // An audit: ISO_INSTANT left out a fraction of .000; both times always carry milliseconds.
        assertTrue(row.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z,\\d{4}-\\d\\d-\\d\\dT"
                + "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z,.*"), row);
        // An audit: the overview showed the balance cut to whole cents ($0.00 for $0.009999).
        assertTrue(alice.browser().get("/").body().contains(money(5_000_000 - cost)), "every micro-dollar");

        HttpResponse<String> balance = alice.browser().get("/balance");
        assertEquals(200, balance.statusCode());
        assertTrue(balance.body().contains("+$5.00") && balance.body().contains("Credit from the operator"),
                balance.body());
        assertTrue(balance.body().contains("−" + money(cost)) && balance.body().contains("Spend: 1 request"));
        assertTrue(balance.body().contains(money(5_000_000 - cost)), "what is left");
    }

    /** The part of {@code html} from {@code start} to the first {@code end} after it. */
    private static String between(String html, String start, String end) {
        int from = html.indexOf(start);
        assertTrue(from >= 0, "the page has " + start + ": " + html);
        int to = html.indexOf(end, from);
        assertTrue(to > from, end + " after " + start);
        return html.substring(from, to);
    }

    /** The request ids of the activity table, top to bottom. */
    private static List<String> activityIds(String html) {
        return REQUEST_ID_CELL.matcher(between(html, "id=\"activity-table\"", "</table>")).results()
                .map(m -> m.group(1)).toList();
    }

    @Test
    void theTokenChartShowsTodaysPromptPlusCompletionTokens() throws InterruptedException {
        Customer bob = customer("token key");
        Reply reply = completion(bob.gp(), "tollgate/simulator-priced", "");
        @SuppressWarnings("unchecked")
        Map<String, Object> usage = (Map<String, Object>) reply.json().get("usage");
        long prompt = ((Number) usage.get("prompt_tokens")).longValue();
        long completion = ((Number) usage.get("completion_tokens")).longValue();
        assertTrue(prompt > 0 && completion > 0, usage.toString());
        String tokens = String.format(Locale.ENGLISH, "%,d tokens", prompt + completion);
        String page = usageShowing(bob.browser(), reply.header("x-request-id"));
        String today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();

        String chart = between(page, "id=\"token-chart\"", "</svg>");
        Matcher bar = Pattern.compile("<rect class=\"bar bar-tokens\"([^>]*data-day=\"" + today
                + "\"[^>]*)><title>([^<]*)</title></rect>").matcher(chart);
        assertTrue(bar.find(), "today has a bar in the token chart: " + chart);
        assertTrue(bar.group(1).contains("data-value=\"" + tokens + "\""), bar.group(1));
        assertTrue(bar.group(1).contains("height=\"174\""), "the only day with tokens is the highest bar: "
                + bar.group(1));
        assertEquals(today + ": " + tokens + " (1 request)", bar.group(2), "the bar's tooltip");
        assertEquals(1, Pattern.compile("height=\"[1-9]").matcher(chart).results().count(),
                "no other day has tokens: " + chart);
        assertTrue(page.contains("Tokens per day (prompt + completion), last 30 days — highest day: " + tokens),
                "the caption");
        assertTrue(between(page, "id=\"activity-table\"", "</table>").contains(">" + prompt + " + " + completion
                + "<"), "the activity row splits the same tokens into in + out");
    }

    @Test
    void theWindowsTableShowsTheKeysLimitAndItsUsageAgainstIt() throws InterruptedException {
        Customer carol = customer("unlimited key");
        HttpResponse<String> created = carol.browser().submit("/keys", "/keys", Map.of("name", "capped key",
                "limit", "0.0005", "limit_reset", "daily"));
        assertEquals(201, created.statusCode(), created.body());
        Matcher secret = GP_SECRET.matcher(created.body());
        assertTrue(secret.find());
        // At most 24 output tokens keep the request's hold inside the $0.0005 limit.
        String requestId = completion(secret.group(), "tollgate/simulator-priced", "\"max_tokens\":24,")
                .header("x-request-id");
        usageShowing(carol.browser(), requestId);
        long cost = costMicros(requestId);
        assertTrue(cost > 0 && cost < 500, "the request costs part of the limit: " + cost);

        String row = "";
        for (int i = 0; i < 100 && !row.contains("data-label=\"Today\">" + money(cost) + "<"); i++) {
            if (i > 0) {
                Thread.sleep(50);
            }
            String table = between(carol.browser().get("/usage").body(), "id=\"windows-table\"", "</table>");
            row = between(table, "<span>capped key</span>", "</tr>");
        }
        assertTrue(row.contains("<span>" + money(500) + "</span>"), "the limit: " + row);
        assertTrue(row.contains("resets daily"), row);
        long percent = cost * 100 / 500;
        assertTrue(row.contains("value=\"" + percent + "\"") && row.contains(">" + percent + " %</meter>"),
                "the meter shows " + percent + " % used: " + row);
        for (String window : List.of("Today", "This week", "This month", "Total")) {
            assertTrue(row.contains("data-label=\"" + window + "\">" + money(cost) + "<"), window + ": " + row);
        }
        assertTrue(row.contains(">" + money(500 - cost) + "</td>"), "what is left in today's window: " + row);

        String table = between(carol.browser().get("/usage").body(), "id=\"windows-table\"", "</table>");
        String other = between(table, "<span>unlimited key</span>", "</tr>");
        assertTrue(other.contains("<span>none</span>") && !other.contains("<meter"), "no limit, no meter: " + other);
        assertTrue(other.contains("data-label=\"Total\">$0.00<"), "the other key spent nothing: " + other);
    }

    @Test
    void activityPagesLinkToEachOtherAndNeverRepeatARow() throws InterruptedException {
        Customer dave = customer("paging key");
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 27; i++) {
            made.add(chat(dave.gp(), "tollgate/simulator-free"));
            clock.advance(Duration.ofSeconds(1)); // each request admitted a second after the one before
        }
        for (int i = 0; i < 200 && made.stream().anyMatch(id -> rowsOf("request_ledger", id) == 0); i++) {
            Thread.sleep(50);
        }
        assertTrue(made.stream().allMatch(id -> rowsOf("request_ledger", id) == 1), "every request settled");
        List<String> newestFirst = new ArrayList<>(made);
        Collections.reverse(newestFirst);

        String first = dave.browser().get("/usage").body();
        assertEquals(newestFirst.subList(0, 25), activityIds(first), "the newest 25, newest first");
        assertTrue(first.contains("Requests 1 to 25, newest first"), first);
        assertTrue(first.contains("<a href=\"/usage?offset=25#activity\">Older requests</a>"), first);
        assertFalse(first.contains("Newer requests"), "nothing newer than the first page");

        HttpResponse<String> next = dave.browser().get("/usage?offset=25");
        assertEquals(200, next.statusCode());
        List<String> second = activityIds(next.body());
        assertEquals(newestFirst.subList(25, 27), second, "the two oldest");
        assertTrue(next.body().contains("Requests 26 to 27, newest first"), next.body());
        assertTrue(next.body().contains("<a href=\"/usage?offset=0#activity\">Newer requests</a>"), next.body());
        assertFalse(next.body().contains("Older requests"), "nothing older than the last page");
        assertTrue(Collections.disjoint(activityIds(first), second), "no row on both pages");

        String filtered = dave.browser().get("/usage?model=tollgate/simulator-free").body();
        assertTrue(filtered.contains("<a href=\"/usage?model=tollgate%2Fsimulator-free&amp;offset=25#activity\">"
                + "Older requests</a>"), "the next page keeps the filter: " + filtered);
    }

    @Test
    void csvFieldsAreQuotedAndFormulasDefused() throws InterruptedException {
        Customer customer = customer("=HYPERLINK(\"x\"),then");
        String requestId = chat(customer.gp(), "tollgate/simulator-free");
        usageShowing(customer.browser(), requestId);
        String body = customer.browser().get("/usage/activity.csv").body();
        assertTrue(body.contains(",\"'=HYPERLINK(\"\"x\"\"),then\","), body);
        assertTrue(body.contains(",0.000000,completed,"), "a free request costs 0.000000");
    }

    @Test
    void anotherAccountSeesNothingOfItEvenWithTheKeysHash() throws InterruptedException {
        Customer alice = customer("alice's key");
        String requestId = chat(alice.gp(), "tollgate/simulator-priced");
        usageShowing(alice.browser(), requestId);
        Customer mallory = customer("mallory's key");

        for (String path : List.of("/usage", "/usage?key=" + alice.hash(), "/usage?model=tollgate/simulator-priced",
                "/usage/activity.csv", "/usage/activity.csv?key=" + alice.hash(), "/balance")) {
            HttpResponse<String> seen = mallory.browser().get(path);
            assertEquals(200, seen.statusCode(), path);
            assertFalse(seen.body().contains(requestId), path);
            assertFalse(seen.body().contains("alice"), path);
            assertFalse(seen.body().contains(alice.hash()) && !path.contains(alice.hash()), path);
        }
        String filtered = mallory.browser().get("/usage?key=" + alice.hash()).body();
        assertTrue(filtered.contains("No requests yet."), "alice's key matches nothing for mallory");
        String csv = mallory.browser().get("/usage/activity.csv?key=" + alice.hash()).body();
        assertEquals(1, csv.lines().count(), "only the header");
    }

    @Test
    void signedOutVisitorsAreSentToSignIn() {
        Browser stranger = new Browser();
        for (String path : List.of("/usage", "/usage/activity.csv", "/balance")) {
            HttpResponse<String> response = stranger.get(path);
            assertEquals(303, response.statusCode(), path);
            assertNotNull(location(response));
            assertEquals("/login", location(response));
        }
    }
}
