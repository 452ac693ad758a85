package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
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
                "include_disabled=yes", "include_disabled=1")) {
            Reply reply = get("/api/v1/keys?" + query, gpm);
            assertManagementError(reply, 400, null);
        }
        assertEquals(200, get("/api/v1/keys?offset=0&include_disabled=false", gpm).status());
    }

    @Test
    void anOversizedBodyIs413WithTheEnvelope() {
        String gpm = readWriteKey();
        String huge = "{\"name\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
        Reply reply = post("/api/v1/keys", gpm, huge);
        assertManagementError(reply, 413, null);
    }

    @Test
    void anUnknownRouteOrMethodGetsTheEnvelopeToo() {
        String gpm = readWriteKey();
        assertManagementError(send("PUT", "/api/v1/keys", gpm, "{}"), 405, null);
        assertManagementError(send("POST", "/api/v1/keys/" + "a".repeat(64), gpm, "{}"), 405, null);
        Reply unknown = get("/api/v1/nothing-here", gpm);
        assertManagementError(unknown, 404, null);
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
