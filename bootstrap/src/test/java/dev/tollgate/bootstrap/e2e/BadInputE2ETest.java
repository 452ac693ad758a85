package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.core.type.Argument;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** Bad input always gets the §7.1 envelope with the right status and an actionable message, never a 500. */
@MicronautTest(transactional = false)
class BadInputE2ETest extends GatewayE2ETest {

    @Test
    void malformedOrMisshapenBodiesAre400() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"target\"}").data().get("hash");
        List<String> bodies = List.of("{", "{\"name\":", "not json", "[]", "[{\"name\":\"x\"}]", "\"name\"", "42",
                "null", "{\"name\":\"x\"} {\"name\":\"y\"}", "{\"name\":\"x\",\"name\":\"y\"}",
                "{\"name\":\"x\",}", "{'name':'x'}");
        for (String body : bodies) {
            assertManagementError(post("/api/v1/keys", gpm, body), 400, null);
            assertManagementError(patch("/api/v1/keys/" + hash, gpm, body), 400, null);
        }
        assertManagementError(send("POST", "/api/v1/keys", gpm, ""), 400, null);
        assertManagementError(send("PATCH", "/api/v1/keys/" + hash, gpm, ""), 400, null);
    }

    @Test
    void malformedJsonIsToldInTheRequestsTermsNotTheParsers() {
        String gpm = readWriteKey();
        for (String body : List.of("{\"name\":NaN}", "{\"name\":\"x\" /* note */}", "{\"limit\":Infinity}",
                "{'name':'x'}", "{\"name\":\"x\",}", "{\"" + "n".repeat(60_000) + "\":1}")) {
            Reply reply = post("/api/v1/keys", gpm, body);
            assertManagementError(reply, 400, null);
            String message = reply.error().get("message").toString();
            assertFalse(message.contains("Feature") || message.contains("JsonRead") || message.contains("REDACTED")
                    || message.contains("StreamRead"), message);
            assertTrue(message.length() < 400, message);
        }
        String where = post("/api/v1/keys", gpm, "{\"name\":NaN}").error().get("message").toString();
        assertTrue(where.contains("line 1, column"), where);
    }

    @Test
    void theJsonRoutesAnswerJsonWhateverTheAcceptHeaderAsks() {
        String gpm = readWriteKey();
        String gp = (String) createKey(gpm, "{\"name\":\"k\"}").json().get("key");
        for (String accept : List.of("application/*", "*/json", "*/*", "application/json;q=0.9, */*;q=0.1",
                "text/html")) {
            for (String[] route : List.of(new String[] {"/api/v1/keys", gpm}, new String[] {"/v1/models", gp})) {
                Reply reply = exchange(HttpRequest.newBuilder(URI.create(server.getURL() + route[0]))
                        .header("Authorization", "Bearer " + route[1]).header("Accept", accept).GET().build());
                assertEquals(200, reply.status(), accept + " " + route[0] + " -> " + reply.raw().body());
                assertEquals("application/json", reply.header("content-type"), accept + " " + route[0]);
            }
        }
    }

    @Test
    void a401NamesTheBearerSchemeAndTheRawKeyIsNeverCached() {
        Reply unauthorized = get("/api/v1/keys", "gpm-nope");
        assertManagementError(unauthorized, 401, null);
        assertEquals("Bearer", unauthorized.header("WWW-Authenticate"));
        assertEquals("Bearer", get("/v1/models", null).header("WWW-Authenticate"));
        Reply created = createKey(readWriteKey(), "{\"name\":\"fresh\"}");
        assertEquals("no-store", created.header("Cache-Control"), "the raw key is in this answer only");
    }

    @Test
    void wrongTypesAndValuesNameTheField() {
        String gpm = readWriteKey();
        record Case(String body, String field) {
        }
        List<Case> cases = List.of(
                new Case("{\"name\":\"x\",\"limit\":\"5\"}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":0}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":-1}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":0.0000001}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":1e400}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":1e-2147483648}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":1e2147483647}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":true}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":{}}", "limit"),
                new Case("{\"name\":\"x\",\"limit\":1,\"limit_reset\":\"hourly\"}", "limit_reset"),
                new Case("{\"name\":\"x\",\"limit\":1,\"limit_reset\":7}", "limit_reset"),
                new Case("{\"name\":\"x\",\"expires_at\":true}", "expires_at"),
                new Case("{\"name\":[\"x\"]}", "name"),
                new Case("{\"name\":\"x\",\"disabled\":true}", "disabled"),
                new Case("{\"name\":\"x\",\"hash\":\"abc\"}", "hash"),
                new Case("{\"name\":\"x\",\"account_id\":\"abc\"}", "account_id"),
                new Case("{\"name\":\"x\",\"usage\":0}", "usage"));
        for (Case c : cases) {
            Reply reply = post("/api/v1/keys", gpm, c.body());
            assertManagementError(reply, 400, null);
            assertTrue(((String) reply.error().get("message")).contains(c.field()),
                    c.body() + " -> " + reply.error().get("message"));
        }
    }

    @Test
    void patchRefusesFieldsThatCannotBeChanged() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"x\"}").data().get("hash");
        for (String body : List.of("{\"hash\":\"" + "b".repeat(64) + "\"}", "{\"usage\":0}", "{\"account_id\":\"x\"}",
                "{\"label\":\"x\"}", "{\"created_at\":\"2030-01-01T00:00:00Z\"}", "{\"limit\":\"1\"}",
                "{\"limit_reset\":\"yearly\",\"limit\":1}")) {
            assertManagementError(patch("/api/v1/keys/" + hash, gpm, body), 400, null);
        }
    }

    @Test
    void badQueryParametersAre400() {
        String gpm = readWriteKey();
        for (String query : List.of("offset=-1", "offset=10001", "offset=abc", "offset=1.5", "offset=",
                "offset=%2B5", "offset=%205", "offset=1e2", "offset=-0", "offset=000000000010001",
                "offset=99999999999999999999", "include_disabled=yes", "include_disabled=1")) {
            Reply reply = get("/api/v1/keys?" + query, gpm);
            assertManagementError(reply, 400, null);
        }
        assertEquals(200, get("/api/v1/keys?offset=0&include_disabled=false", gpm).status());
        // Leading zeros, however many, are the same integer (an audit: nine were taken, ten refused).
        for (String offset : List.of("00", "05", "0000000005", "00000000000000000010000")) {
            assertEquals(200, get("/api/v1/keys?offset=" + offset, gpm).status(), offset);
        }
    }

    @Test
    void anOversizedBodyIs413WithTheEnvelope() {
        String gpm = readWriteKey();
        String huge = "{\"name\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
        Reply reply = post("/api/v1/keys", gpm, huge);
        assertManagementError(reply, 413, "Request body is too large: at most 1 MiB (after decompression)");
    }

    @Test
    void anUnknownRouteOrMethodGetsTheEnvelopeToo() {
        String gpm = readWriteKey();
        assertManagementError(send("PUT", "/api/v1/keys", gpm, "{}"), 405, null);
        assertManagementError(send("POST", "/api/v1/keys/" + "a".repeat(64), gpm, "{}"), 405, null);
        Reply unknown = get("/api/v1/nothing-here", gpm);
        assertManagementError(unknown, 404, null);
        // A doubled leading slash reaches no route, and is still answered as the control plane answers.
        assertManagementError(get("//api/v1/keys", gpm), 404, null);
    }

    @Test
    void aHeadAnswerHasTheHeadersOfItsGet() {
        String gpm = readWriteKey();
        String gp = (String) createKey(gpm, "{\"name\":\"k\"}").json().get("key");
        for (String[] route : new String[][] {{"/api/v1/keys", gpm}, {"/v1/models", gp},
                {"/v1/models/tollgate/simulator-priced", gp}}) {
            Reply head = exchange(typed("HEAD", route[0], route[1], null, null));
            assertEquals(200, head.status(), route[0]);
            assertTrue(head.header("content-type").startsWith("application/json"), route[0] + ": "
                    + head.raw().headers().map());
        }
    }

    @Test
    void managementBodiesMustBeDeclaredJson() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"typed\"}").data().get("hash");
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", null}) {
            Reply created = exchange(typed("POST", "/api/v1/keys", gpm, type, "{\"name\":\"plain\"}"));
            assertManagementError(created, 415, null);
            assertTrue(created.error().get("message").toString().contains("application/json"), created.raw().body());
            assertManagementError(exchange(typed("PATCH", "/api/v1/keys/" + hash, gpm, type, "{\"disabled\":true}")),
                    415, null);
        }
        assertEquals(1, ((List<?>) get("/api/v1/keys", gpm).json().get("data")).size(), "nothing was created");
        assertEquals(Boolean.FALSE, get("/api/v1/keys/" + hash, gpm).data().get("disabled"), "nothing was changed");
        assertEquals(201, exchange(typed("POST", "/api/v1/keys", gpm, "Application/JSON; charset=UTF-8",
                "{\"name\":\"charset\"}")).status(), "parameters and case do not matter");
        assertEquals(200, exchange(typed("DELETE", "/api/v1/keys/" + hash, gpm, null, null)).status(),
                "a request without a body needs no type");
    }

    @Test
    void chatCompletionBodiesMustBeDeclaredJsonToo() {
        // §4.2: POST /v1/chat/completions takes "JSON body per section 2.3; header Content-Type: application/json".
        String gp = (String) createKey(readWriteKey(), "{\"name\":\"typed\"}").json().get("key");
        String body = "{\"model\":\"tollgate/simulator-free\",\"max_tokens\":3,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
            null}) {
            Reply refused = exchange(typed("POST", "/v1/chat/completions", gp, type, body));
            assertEquals(415, refused.status(), type + ": " + refused.raw().body());
            Map<String, Object> error = refused.error();
            assertEquals("unsupported_media_type", error.get("code"));
            assertEquals("invalid_request_error", error.get("type"));
            assertTrue(error.get("message").toString().contains("Content-Type: application/json"), error.toString());
            assertNotNull(refused.header("x-ratelimit-remaining-requests"), "counted like any refused request");
        }
        assertEquals(200, exchange(typed("POST", "/v1/chat/completions", gp, "Application/JSON; charset=UTF-8",
                body)).status(), "parameters and case do not matter");
        assertEquals(200, exchange(typed("POST", "/v1/chat/completions", gp, "application/json;charset=\"utf8\"",
                body)).status());
        // JSON is UTF-8 (RFC 8259 §8.1): another declared charset is refused, not read as UTF-8 or guessed at.
        for (String type : new String[] {"application/json; charset=iso-8859-1", "application/json; charset=utf-16le",
            "application/json; charset=klingon"}) {
            Reply refused = exchange(typed("POST", "/v1/chat/completions", gp, type, body));
            assertEquals(415, refused.status(), type + ": " + refused.raw().body());
            assertTrue(refused.error().get("message").toString().contains("charset must be UTF-8"),
                    refused.raw().body());
        }
        assertEquals(400, exchange(typed("POST", "/v1/chat/completions", gp, null, null)).status(),
                "no body at all is the empty body's 400");
    }

    @Test
    void anExpiryMustBeATimestampThatExistsWithAFourDigitYear() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"target\"}").data().get("hash");
        for (String value : List.of("+12030-01-01T00:00:00Z", "12030-01-01T00:00:00Z", "2030-02-30T00:00:00Z",
                "2031-02-29T12:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T23:60:00Z", "2030-01-01T00:00:00.Z",
                "2030-01-01", "2030-01-01T00:00:00", "2030-1-01T00:00:00Z", "2030-01-01T00:00:00+2", "",
                "2030-01-01T00:00:00+24:00", "2030-01-01T00:00:00+05:60", "2030-06-30T23:58:60Z",
                // Nothing around the timestamp, not even whitespace or a line break.
                " 2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z ", "\\t2030-01-01T00:00:00Z\\n",
                "\u30002030-01-01T00:00:00Z",
                // A four-digit year here, but year 10000 in UTC, which is what is stored and shown.
                "9999-12-31T23:30:00-05:00",
                // An audit: second 60 in the local minute 59 under a half-hour offset is 00:29:60 UTC — no such time.
                "2030-07-01T05:59:60+05:30", "2030-06-30T23:59:60-00:45",
                // An audit: 22:59:60 UTC, and 23:59:60 UTC on a day that does not end a month — no leap second.
                "2030-12-31T23:59:60+01:00", "2030-06-15T23:59:60Z")) {
            String body = "{\"name\":\"x\",\"expires_at\":\"" + value + "\"}";
            Reply created = post("/api/v1/keys", gpm, body);
            assertManagementError(created, 400, null);
            assertTrue(created.error().get("message").toString().contains("expires_at"),
                    body + " -> " + created.error());
            Reply patched = patch("/api/v1/keys/" + hash, gpm, "{\"expires_at\":\"" + value + "\"}");
            assertManagementError(patched, 400, null);
        }
        assertEquals(null, get("/api/v1/keys/" + hash, gpm).data().get("expires_at"), "nothing was changed");
        record Accepted(String sent, String stored) {
        }
        for (Accepted c : List.of(new Accepted("2030-01-01T00:00:00.1234567891Z", "2030-01-01T00:00:00.123Z"),
                new Accepted("2030-01-01t00:00:00z", "2030-01-01T00:00:00.000Z"),
                new Accepted("2030-01-01T02:00+02:00", "2030-01-01T00:00:00.000Z"),
                new Accepted("2032-02-29T23:59:59.999-00:30", "2032-03-01T00:29:59.999Z"),
                // RFC 3339 allows offsets to ±23:59 (Java only ±18:00) and a leap second.
                new Accepted("2030-01-02T00:00:00+19:00", "2030-01-01T05:00:00.000Z"),
                new Accepted("2030-01-01T00:00:00-23:59", "2030-01-01T23:59:00.000Z"),
                new Accepted("2030-06-30T23:59:60Z", "2030-07-01T00:00:00.000Z"),
                new Accepted("2030-07-01T01:59:60.5+02:00", "2030-07-01T00:00:00.500Z"),
                new Accepted("2030-07-01T05:29:60+05:30", "2030-07-01T00:00:00.000Z"))) {
            Reply created = createKey(gpm, "{\"name\":\"x\",\"expires_at\":\"" + c.sent() + "\"}");
            assertEquals(c.stored(), created.data().get("expires_at"), c.sent());
        }
    }

    @Test
    void aNameHoldingAKeyIsRefusedSoNoReaderOfTheListSeesIt() {
        String gpm = readWriteKey();
        Map<String, Object> created = createKey(gpm, "{\"name\":\"target\"}").data();
        String hash = (String) created.get("hash");
        // An audit stored a raw key as a name; list and get then showed it to every read-only management key.
        for (String name : List.of("my gp-STrZf8yomrIyTI353QlsuITOc04jmLxE0IGFol", "gpm-abcdefghijklmnop",
                "old key gp-0123456789abcdefXYZ copy")) {
            Reply refused = post("/api/v1/keys", gpm, "{\"name\":\"" + name + "\"}");
            assertManagementError(refused, 400, null);
            assertTrue(refused.error().get("message").toString().startsWith("name must not contain an API key"),
                    refused.raw().body());
            assertFalse(refused.raw().body().contains(name.substring(name.indexOf("gp"))), "not echoed");
            assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"name\":\"" + name + "\"}"), 400, null);
        }
        for (String name : List.of("gp-production", "gpm-rotation 2026", "acme/gp-turbo batch", "gp-0123456789abcde")) {
            assertEquals(name, createKey(gpm, "{\"name\":\"" + name + "\"}").data().get("name"), name);
        }
        assertEquals("target", get("/api/v1/keys/" + hash, gpm).data().get("name"), "nothing was changed");
    }

    @Test
    void aNameWithAnUnpairedSurrogateIsRefusedNotStoredAsSomethingElse() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"target\"}").data().get("hash");
        for (String name : List.of("x\\ud800y", "\\udc00", "\\ud83d")) {
            Reply created = post("/api/v1/keys", gpm, "{\"name\":\"" + name + "\"}");
            assertManagementError(created, 400, null);
            assertTrue(created.error().get("message").toString().contains("name"), created.raw().body());
            assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"name\":\"" + name + "\"}"), 400, null);
        }
        for (String name : List.of("\\u00a0", "\\u200b\\u3000", "\\u2060", "a\\u202eb", "\\u2066x")) {
            Reply created = post("/api/v1/keys", gpm, "{\"name\":\"" + name + "\"}");
            assertManagementError(created, 400, null);
            assertTrue(created.error().get("message").toString().contains("name"), created.raw().body());
        }
        Reply pair = createKey(gpm, "{\"name\":\"rocket \\ud83d\\ude80\"}");
        assertEquals("rocket \ud83d\ude80", pair.data().get("name"));
        assertEquals("target", get("/api/v1/keys/" + hash, gpm).data().get("name"));
    }

    @Test
    void aBodyThatDoesNotDecompressAsItsEncodingSaysIs400InEachSurfacesEnvelope() throws IOException {
        String gpm = readWriteKey();
        String plain = "{\"name\":\"zipped\"}";
        Reply management = exchange(encoded("/api/v1/keys", gpm, "gzip", plain.getBytes(StandardCharsets.UTF_8)));
        assertManagementError(management, 400, null);
        assertTrue(management.error().get("message").toString().contains("Content-Encoding"), management.raw().body());
        Reply model = exchange(encoded("/v1/chat/completions", "gp-whatever", "deflate",
                "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(400, model.status(), model.raw().body());
        assertEquals("invalid_request_error", model.error().get("type"));
        assertNotNull(model.header("x-request-id"));
        // The same body compressed as it says is read as usual.
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
            gzip.write(plain.getBytes(StandardCharsets.UTF_8));
        }
        Reply created = exchange(encoded("/api/v1/keys", gpm, "gzip", zipped.toByteArray()));
        assertEquals(201, created.status(), created.raw().body());
        assertEquals("zipped", created.data().get("name"));
        // A gzip stream cut short (here after its 10-byte header) decompresses to nothing, without an error: the
        // message says it may be cut short. Cut later, what came out of it is read as JSON cut short.
        byte[] cut = java.util.Arrays.copyOf(zipped.toByteArray(), 10);
        Reply truncated = exchange(encoded("/api/v1/keys", gpm, "gzip", cut));
        assertManagementError(truncated, 400, null);
        assertTrue(truncated.error().get("message").toString().contains("cut short"), truncated.raw().body());
    }

    @Test
    void aBodyInACodingNothingHereDecodesIs415NotReadAsPlain() {
        String gpm = readWriteKey();
        byte[] plain = "{\"name\":\"looks plain\"}".getBytes(StandardCharsets.UTF_8);
        for (String encoding : List.of("br", "compress", "gzipp")) {
            Reply management = exchange(encoded("/api/v1/keys", gpm, encoding, plain));
            assertManagementError(management, 415, null);
            assertTrue(management.error().get("message").toString().contains(encoding), management.raw().body());
            Reply model = exchange(encoded("/v1/chat/completions", "gp-whatever", encoding, plain));
            assertEquals(415, model.status(), model.raw().body());
            assertEquals("unsupported_media_type", model.error().get("code"));
        }
        assertEquals(0, get("/api/v1/keys", gpm).dataList().size(), "nothing was created");
        assertEquals(201, exchange(encoded("/api/v1/keys", gpm, "identity", plain)).status());
    }

    @Test
    void twoAuthorizationHeadersAreAmbiguousAndRefused() {
        String gpm = readWriteKey();
        Reply twice = exchange(HttpRequest.newBuilder(URI.create(server.getURL() + "/api/v1/keys"))
                .header("Authorization", "Bearer " + gpm).header("Authorization", "Bearer " + gpm).GET().build());
        assertManagementError(twice, 401, null);
        String gp = (String) createKey(gpm, "{\"name\":\"k\"}").json().get("key");
        Reply model = exchange(HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/models"))
                .header("Authorization", "Bearer " + gp).header("Authorization", "Bearer gp-other").GET().build());
        assertEquals(401, model.status(), model.raw().body());
        assertEquals("invalid_api_key", model.error().get("code"));
    }

    @Test
    void requestHeadsTheFrameworkCannotReadGetTheRightStatusInEachSurfacesEnvelope() throws IOException {
        String gpm = readWriteKey();
        RawReply badEscape = raw("GET /api/v1/keys/%ZZ HTTP/1.1", "Authorization: Bearer " + gpm);
        assertEquals(400, badEscape.status(), badEscape.text());
        assertControlPlaneEnvelope(badEscape, 400);
        RawReply badQuery = raw("GET /api/v1/keys?offset=%ZZ HTTP/1.1", "Authorization: Bearer " + gpm);
        assertControlPlaneEnvelope(badQuery, 400);
        RawReply modelEscape = raw("GET /v1/models/%ZZ HTTP/1.1", "Authorization: Bearer gp-x");
        assertEquals(400, modelEscape.status(), modelEscape.text());
        assertTrue(modelEscape.body().contains("\"type\":\"invalid_request_error\""), modelEscape.text());

        String longPath = "/api/v1/keys/" + "a".repeat(9_000);
        RawReply longLine = raw("GET " + longPath + " HTTP/1.1", "Authorization: Bearer " + gpm);
        assertEquals(414, longLine.status(), longLine.text());
        assertControlPlaneEnvelope(longLine, 414);
        RawReply longModelLine = raw("GET /v1/models/" + "a".repeat(9_000) + " HTTP/1.1", "Authorization: Bearer gp-x");
        assertEquals(414, longModelLine.status(), longModelLine.text());
        assertTrue(longModelLine.body().contains("\"type\":\"invalid_request_error\""), longModelLine.text());

        RawReply bigHeaders = raw("GET /api/v1/keys HTTP/1.1", "Authorization: Bearer " + gpm,
                "X-Big: " + "b".repeat(20_000));
        assertEquals(431, bigHeaders.status(), bigHeaders.text());
        assertControlPlaneEnvelope(bigHeaders, 431);

        // Heads the decoder refuses for their framing say what was wrong, not a bare "Bad Request".
        RawReply twoLengths = raw("POST /api/v1/keys HTTP/1.1", "Authorization: Bearer " + gpm,
                "Content-Type: application/json", "Content-Length: 2", "Content-Length: 3");
        assertEquals(400, twoLengths.status(), twoLengths.text());
        assertControlPlaneEnvelope(twoLengths, 400);
        assertTrue(twoLengths.body().contains("Multiple Content-Length"), twoLengths.text());
        RawReply notANumber = raw("POST /v1/chat/completions HTTP/1.1", "Authorization: Bearer gp-x",
                "Content-Type: application/json", "Content-Length: abc");
        assertEquals(400, notANumber.status(), notANumber.text());
        assertTrue(notANumber.body().contains("\"type\":\"invalid_request_error\"")
                && notANumber.body().contains("not a number: abc"), notANumber.text());
        // Only HTTP/1.0 and 1.1 are spoken: another version is a 505, in an HTTP/1.1 status line.
        for (String version : List.of("HTTP/1.2", "HTTP/2.0")) {
            RawReply other = raw("GET /v1/models " + version, "Authorization: Bearer gp-x");
            assertEquals(505, other.status(), other.text());
            assertTrue(other.head().startsWith("HTTP/1.1 505"), other.text());
            assertTrue(other.body().contains("\"code\":\"http_version_not_supported\""), other.text());
        }
        // Methods are case-sensitive: `get` is not GET, and a method HTTP does not define is not implemented (501),
        // rather than served or called merely not allowed on the route.
        RawReply lowercase = raw("get /api/v1/keys HTTP/1.1", "Authorization: Bearer " + gpm);
        assertEquals(501, lowercase.status(), lowercase.text());
        assertControlPlaneEnvelope(lowercase, 501);
        assertTrue(lowercase.body().contains("case-sensitive): send GET"), lowercase.text());
        RawReply unknown = raw("BREW /v1/models HTTP/1.1", "Authorization: Bearer gp-x");
        assertEquals(501, unknown.status(), unknown.text());
        assertTrue(unknown.body().contains("\"code\":\"method_not_implemented\""), unknown.text());
        // The server is unharmed: the next connection is served as usual.
        assertEquals(200, get("/api/v1/keys", gpm).status());
    }

    @Test
    void aChunkedRequestIsTheLastOnItsConnectionSoNothingCanBeSmuggledAfterIt() throws IOException {
        String gpm = readWriteKey();
        String chunked = chunked("{\"name\":\"chunked\"}");
        String smuggled = "GET /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm + "\r\n\r\n";
        // Both framings: a proxy that trusts Content-Length sees one request, the chunked reading two (RFC 9112 §6.1).
        String both = "POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                + "\r\nContent-Type: application/json\r\nContent-Length: " + (chunked.length() + smuggled.length())
                + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + smuggled;
        String answers = exchange(both);
        assertEquals(1, answers.split("HTTP/1\\.1 ", -1).length - 1, "one answer, then the connection ends: " + answers);
        assertTrue(answers.startsWith("HTTP/1.1 201"), answers);
        assertTrue(answers.toLowerCase(Locale.ROOT).contains("connection: close"), answers);

        // A plain chunked body is answered and ends its connection the same way.
        String plain = exchange("POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunked("{\"name\":\"plain chunked\"}") + smuggled);
        assertEquals(1, plain.split("HTTP/1\\.1 ", -1).length - 1, plain);
        assertTrue(plain.startsWith("HTTP/1.1 201"), plain);

        // A chunk whose size is no hexadecimal number: said so, in the surface's envelope (Micronaut read the
        // chunks before it as the whole body and answered "Request body is empty").
        for (String broken : new String[] {"zz\r\n{}\r\n0\r\n\r\n", "5\r\n{\"name\":\"cut\"}\r\n0\r\n\r\n"}) {
            String answer = exchange("POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                    + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + broken);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(answer.contains("chunked encoding cannot be read") && answer.contains("\"success\":false"),
                    answer);
            assertEquals(1, answer.split("HTTP/1\\.1 ", -1).length - 1, "one answer: " + answer);
        }
        String model = exchange("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer gp-x"
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n{}\r\n0\r\n\r\n");
        assertTrue(model.startsWith("HTTP/1.1 400") && model.contains("\"type\":\"invalid_request_error\""), model);

        // A Transfer-Encoding whose last coding is not chunked leaves the body's length unknown (RFC 9112 §6.3): 400
        // and the connection closed, never the Content-Length's reading with what follows served as a second request
        // (an audit, 2026-11-29); a coding before chunked that is not decoded here: 501.
        String body = "{\"name\":\"framed\"}";
        Map<String, String> framings = Map.of("xchunked", "400", "identity", "400", "chunked, identity", "400",
                "chunked, chunked", "400", "gzip, chunked", "501");
        for (Map.Entry<String, String> framing : framings.entrySet()) {
            String answer = exchange("POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\nTransfer-Encoding: " + framing.getKey() + "\r\n\r\n" + body + smuggled);
            assertTrue(answer.startsWith("HTTP/1.1 " + framing.getValue()), framing + ": " + answer);
            assertEquals(1, answer.split("HTTP/1\\.1 ", -1).length - 1, "one answer, then the connection ends: "
                    + answer);
            assertTrue(answer.contains("Transfer"), answer);
        }
        String withoutLength = exchange("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                + "Bearer gp-x\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n" + body
                + smuggled);
        assertTrue(withoutLength.startsWith("HTTP/1.1 400") && withoutLength.contains("invalid_request_error"),
                withoutLength);
        assertEquals(1, withoutLength.split("HTTP/1\\.1 ", -1).length - 1, withoutLength);

        // Requests framed by Content-Length keep their connection: two pipelined ones get two answers.
        String listed = "GET /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                + "\r\n\r\n";
        String twice = exchange(listed + listed.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
        assertEquals(2, twice.split("HTTP/1\\.1 200", -1).length - 1, twice);
    }

    @Test
    void aBodyAnnouncedOverTheLimitIsRefusedBeforeTheClientIsInvitedToSendIt() throws IOException {
        // RFC 9110 §10.1.1: with Expect: 100-continue the client waits; a declared length over 1 MiB gets the 413 at
        // once, not a 100 Continue that invites megabytes only to refuse them.
        RawReply model = raw("POST /v1/chat/completions HTTP/1.1", "Authorization: Bearer gp-x",
                "Content-Type: application/json", "Content-Length: 5000000", "Expect: 100-continue");
        assertEquals(413, model.status(), model.text());
        assertTrue(model.body().contains("\"code\":\"request_too_large\"") && model.body().contains("at most 1 MiB"),
                model.text());
        RawReply control = raw("POST /api/v1/keys HTTP/1.1", "Authorization: Bearer " + readWriteKey(),
                "Content-Type: application/json", "Content-Length: 5000000", "Expect: 100-continue");
        assertEquals(413, control.status(), control.text());
        assertControlPlaneEnvelope(control, 413);

        // Within the limit the client is told to go on; the interim answer carries no id of its own (the request's
        // comes with the final answer), so no two requests ever show the same one.
        String gpm = readWriteKey();
        String body = "{\"name\":\"after continue\"}";
        try (Socket socket = new Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + gpm
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            java.io.InputStream in = socket.getInputStream();
            StringBuilder interim = new StringBuilder();
            while (!interim.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                assertTrue(b >= 0, "an interim answer: " + interim);
                interim.append((char) b);
            }
            assertTrue(interim.toString().startsWith("HTTP/1.1 100"), interim.toString());
            assertFalse(interim.toString().toLowerCase(Locale.ROOT).contains("x-request-id"), interim.toString());
            out.write(body.getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 201"), answer);
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("x-request-id: req_"), answer);
        }
    }

    /** RFC 9112 §3.2: an HTTP/1.1 request needs exactly one Host header; HTTP/1.0 needs none. */
    @Test
    void anHttp11RequestWithoutOneHostHeaderIs400() throws IOException {
        String gpm = readWriteKey();
        String none = exchange("GET /api/v1/keys HTTP/1.1\r\nAuthorization: Bearer " + gpm + "\r\n\r\n");
        assertTrue(none.startsWith("HTTP/1.1 400"), none);
        assertTrue(none.contains("\"statusCode\":400"), "the control plane's envelope: " + none);
        assertTrue(none.contains("no Host header"), none);
        String model = exchange("GET /v1/models HTTP/1.1\r\nAuthorization: Bearer gp-x\r\n\r\n");
        assertTrue(model.startsWith("HTTP/1.1 400"), model);
        assertTrue(model.contains("\"type\":\"invalid_request_error\""), "the model surface's envelope: " + model);
        String two = exchange("GET /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\n"
                + "Authorization: Bearer " + gpm + "\r\n\r\n");
        assertTrue(two.startsWith("HTTP/1.1 400"), two);
        assertTrue(two.contains("2 Host headers"), two);
        // An invalid value is a 400 as well (an audit: these were served, the first even by the loopback-only
        // outbox).
        for (String host : List.of("localhost:18781@evil.example", "localhost:abc", "localhost:1/evil.example",
                "localhost@evil.example", "a b", "[::1")) {
            String invalid = exchange("GET /api/v1/keys HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer "
                    + gpm + "\r\n\r\n");
            assertTrue(invalid.startsWith("HTTP/1.1 400") && invalid.contains("is not a host name"), host + ": "
                    + invalid);
        }
        for (String host : List.of("127.0.0.1:8080", "[::1]:8080", "gateway.example", "localhost:",
                "xn--bcher-kva.example")) {
            String valid = exchange("GET /api/v1/keys HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer "
                    + gpm + "\r\nConnection: close\r\n\r\n");
            assertTrue(valid.startsWith("HTTP/1.1 200"), host + ": " + valid);
        }
        String old = exchange("GET /api/v1/keys HTTP/1.0\r\nAuthorization: Bearer " + gpm + "\r\n\r\n");
        assertTrue(old.matches("(?s)HTTP/1\\.[01] 200.*"), "HTTP/1.0 without Host is served: " + old);
    }

    private static String chunked(String json) {
        return Integer.toHexString(json.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + json + "\r\n0\r\n\r\n";
    }

    /** Writes {@code request} (one or more, as they are) and reads until the gateway closes the connection. */
    private String exchange(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** An answer read off a raw socket: for request heads no HTTP client would send. */
    private record RawReply(int status, String head, String body) {
        String text() {
            return head + "\r\n\r\n" + body;
        }
    }

    private RawReply raw(String requestLine, String... headers) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(10_000);
            StringBuilder request = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int split = answer.indexOf("\r\n\r\n");
            assertTrue(split > 0, "an HTTP answer: " + answer);
            return new RawReply(Integer.parseInt(answer.substring(9, 12)), answer.substring(0, split),
                    answer.substring(split + 4));
        }
    }

    private void assertControlPlaneEnvelope(RawReply reply, int status) throws IOException {
        Map<String, Object> body = json.readValue(reply.body(), Argument.mapOf(String.class, Object.class));
        assertEquals(Boolean.FALSE, body.get("success"), reply.text());
        @SuppressWarnings("unchecked")
        Map<String, Object> error = (Map<String, Object>) body.get("error");
        assertEquals(status, error.get("statusCode"));
        assertTrue(error.get("message") instanceof String m && !m.isBlank(), reply.text());
        String requestId = reply.head().lines()
                .filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("x-request-id:"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse(null);
        assertNotNull(requestId, reply.text());
        assertEquals(requestId, error.get("requestId"), reply.text());
        assertTrue(MILLIS_UTC.matcher((String) error.get("timestamp")).matches(), reply.text());
    }

    private HttpRequest encoded(String path, String key, String encoding, byte[] body) {
        return HttpRequest.newBuilder(URI.create(server.getURL() + path))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .header("Content-Encoding", encoding)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
    }

    private HttpRequest typed(String method, String path, String key, String contentType, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL() + path))
                .header("Authorization", "Bearer " + key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return request.build();
    }
}
