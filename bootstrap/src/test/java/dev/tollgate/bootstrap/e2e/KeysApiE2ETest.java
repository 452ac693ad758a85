package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** §4.1 over HTTP: the five routes, rules 1–9, list paging and PATCH semantics. */
@MicronautTest(transactional = false)
class KeysApiE2ETest extends GatewayE2ETest {

    private static final List<String> RECORD_FIELDS = List.of("hash", "label", "name", "disabled", "limit",
            "limit_remaining", "limit_reset", "usage", "usage_daily", "usage_weekly", "usage_monthly", "created_at",
            "updated_at", "expires_at", "include_byok_in_limit", "byok_usage", "byok_usage_daily",
            "byok_usage_weekly", "byok_usage_monthly", "creator_user_id", "external_user", "workspace_id");

    @Inject
    ApiKeyRepository apiKeys;
    @Inject
    KeySpendRepository spend;

    private String future(Duration ahead) {
        return clock.instant().plus(ahead).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    @Test
    void createAnswers201WithTheRawKeyOnceAndTheFullRecord() {
        String gpm = readWriteKey();
        String expires = future(Duration.ofDays(30));
        Reply reply = createKey(gpm, "{\"name\":\"prod\",\"limit\":5,\"limit_reset\":\"monthly\",\"expires_at\":\""
                + expires + "\"}");

        assertTrue(reply.header("content-type").startsWith("application/json"));
        assertTrue(reply.header("x-request-id").startsWith("req_"));
        String raw = (String) reply.json().get("key");
        assertTrue(raw.startsWith("gp-") && raw.length() >= 35, raw);
        Map<String, Object> data = reply.data();
        RECORD_FIELDS.forEach(f -> assertTrue(data.containsKey(f), "missing " + f));
        assertEquals(64, ((String) data.get("hash")).length());
        assertTrue(((String) data.get("hash")).matches("[0-9a-f]{64}"));
        assertEquals("prod", data.get("name"));
        assertEquals(Boolean.FALSE, data.get("disabled"));
        assertUsd("5", data.get("limit"));
        assertUsd("5", data.get("limit_remaining"));
        assertEquals("monthly", data.get("limit_reset"));
        assertUsd("0", data.get("usage"));
        assertUsd("0", data.get("usage_daily"));
        assertEquals(Boolean.FALSE, data.get("include_byok_in_limit"));
        assertEquals(Instant.parse(expires), Instant.parse((String) data.get("expires_at")));
        assertTrue(MILLIS_UTC.matcher((String) data.get("created_at")).matches());
        assertTrue(MILLIS_UTC.matcher((String) data.get("updated_at")).matches());
        assertTrue(MILLIS_UTC.matcher((String) data.get("expires_at")).matches());
        String label = (String) data.get("label");
        assertTrue(label.startsWith("gp-") && label.endsWith(raw.substring(raw.length() - 4)), label);
        assertFalse(label.contains(raw.substring(3, 20)), "label must mask the key");

        Reply fetched = get("/api/v1/keys/" + data.get("hash"), gpm);
        assertEquals(200, fetched.status());
        assertFalse(fetched.raw().body().contains(raw), "the raw key is never shown again");
        assertEquals(data.get("created_at"), fetched.data().get("created_at"));
    }

    @Test
    void unsetFieldsArePresentAsNull() {
        Map<String, Object> data = createKey(readWriteKey(), "{\"name\":\"bare\"}").data();
        assertTrue(data.containsKey("limit") && data.get("limit") == null);
        assertTrue(data.containsKey("limit_remaining") && data.get("limit_remaining") == null);
        assertTrue(data.containsKey("limit_reset") && data.get("limit_reset") == null);
        assertTrue(data.containsKey("expires_at") && data.get("expires_at") == null);
        assertTrue(data.containsKey("creator_user_id") && data.get("creator_user_id") == null);
    }

    @Test
    void rule1LimitWithoutResetIsALifetimeLimit() {
        Map<String, Object> data = createKey(readWriteKey(), "{\"name\":\"life\",\"limit\":2.5}").data();
        assertUsd("2.5", data.get("limit"));
        assertNull(data.get("limit_reset"));
        assertUsd("2.5", data.get("limit_remaining"));
    }

    @Test
    void rule2LimitResetWithoutLimitIs400OnCreateAndPatch() {
        String gpm = readWriteKey();
        assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\",\"limit_reset\":\"daily\"}"), 400,
                "limit_reset requires limit");
        assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\",\"limit\":null,\"limit_reset\":\"weekly\"}"),
                400, "limit_reset requires limit");
        String hash = (String) createKey(gpm, "{\"name\":\"x\",\"limit\":3}").data().get("hash");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"limit_reset\":\"daily\"}"), 400,
                "limit_reset requires limit");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"limit\":null,\"limit_reset\":\"daily\"}"), 400,
                "limit_reset requires limit");
        // "Sent" whatever its value: none (null, "") without a limit is refused as well.
        assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\",\"limit_reset\":null}"), 400,
                "limit_reset requires limit");
        assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\",\"limit_reset\":\"\"}"), 400,
                "limit_reset requires limit");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"limit_reset\":null}"), 400,
                "limit_reset requires limit");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"limit_reset\":\"\"}"), 400,
                "limit_reset requires limit");
        // The refused PATCHes changed nothing.
        Map<String, Object> data = get("/api/v1/keys/" + hash, gpm).data();
        assertUsd("3", data.get("limit"));
        assertNull(data.get("limit_reset"));
        // With a limit in the same body the period is accepted.
        Map<String, Object> changed = patch("/api/v1/keys/" + hash, gpm, "{\"limit\":4,\"limit_reset\":\"daily\"}")
                .data();
        assertEquals("daily", changed.get("limit_reset"));
        assertUsd("4", changed.get("limit"));
    }

    @Test
    void rule3PatchLimitNullRemovesTheLimitAndClearsTheReset() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"x\",\"limit\":3,\"limit_reset\":\"weekly\"}").data()
                .get("hash");
        Reply reply = patch("/api/v1/keys/" + hash, gpm, "{\"limit\":null}");
        assertEquals(200, reply.status());
        assertNull(reply.data().get("limit"));
        assertNull(reply.data().get("limit_remaining"));
        assertNull(reply.data().get("limit_reset"));
    }

    @Test
    void patchWithANewLimitAndNoResetMakesItLifetime() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"x\",\"limit\":3,\"limit_reset\":\"weekly\"}").data()
                .get("hash");
        Map<String, Object> data = patch("/api/v1/keys/" + hash, gpm, "{\"limit\":7}").data();
        assertUsd("7", data.get("limit"));
        assertNull(data.get("limit_reset"));
    }

    @Test
    void rule4ExpiresAtMustBeAFutureTimestampWithAZone() {
        String gpm = readWriteKey();
        for (String bad : List.of(clock.instant().minusSeconds(60).toString(), clock.instant().toString(),
                "2031-01-01", "2031-01-01T00:00:00", "next tuesday", "")) {
            Reply reply = post("/api/v1/keys", gpm, "{\"name\":\"x\",\"expires_at\":\"" + bad + "\"}");
            assertManagementError(reply, 400, null);
        }
        assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\",\"expires_at\":1893456000}"), 400, null);
        // With or without fractional seconds, with Z or an offset: accepted, shown in UTC with milliseconds.
        Map<String, Object> withOffset = createKey(gpm, "{\"name\":\"x\",\"expires_at\":\"2031-01-01T02:00:00+02:00\"}")
                .data();
        assertEquals("2031-01-01T00:00:00.000Z", withOffset.get("expires_at"));
        Map<String, Object> withMillis = createKey(gpm, "{\"name\":\"x\",\"expires_at\":\"2031-01-01T00:00:00.250Z\"}")
                .data();
        assertEquals("2031-01-01T00:00:00.250Z", withMillis.get("expires_at"));
        String hash = (String) withMillis.get("hash");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm,
                "{\"expires_at\":\"" + clock.instant().minusSeconds(1) + "\"}"), 400, null);
    }

    @Test
    void rule5PatchExpiresAtNullRemovesTheExpiry() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"x\",\"expires_at\":\"" + future(Duration.ofDays(1)) + "\"}")
                .data().get("hash");
        Reply reply = patch("/api/v1/keys/" + hash, gpm, "{\"expires_at\":null}");
        assertEquals(200, reply.status());
        assertTrue(reply.data().containsKey("expires_at"));
        assertNull(reply.data().get("expires_at"));
    }

    @Test
    void rule6ByokFieldsAre400() {
        String gpm = readWriteKey();
        for (String field : List.of("\"include_byok_in_limit\":false", "\"include_byok_in_limit\":true",
                "\"byok_usage\":0")) {
            assertManagementError(post("/api/v1/keys", gpm, "{\"name\":\"x\"," + field + "}"), 400, null);
        }
        String hash = (String) createKey(gpm, "{\"name\":\"x\"}").data().get("hash");
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"include_byok_in_limit\":false}"), 400, null);
    }

    @Test
    void rule7ReadOnlyKeysMayOnlyRead() {
        Email email = newAccount(true);
        String readWrite = managementKey(email, ManagementAccess.READ_WRITE);
        String readOnly = managementKey(email, ManagementAccess.READ_ONLY);
        String hash = (String) createKey(readWrite, "{\"name\":\"x\"}").data().get("hash");

        assertEquals(200, get("/api/v1/keys", readOnly).status());
        assertEquals(200, get("/api/v1/keys/" + hash, readOnly).status());
        String message = "Management API key is read-only";
        assertManagementError(post("/api/v1/keys", readOnly, "{\"name\":\"y\"}"), 403, message);
        assertManagementError(patch("/api/v1/keys/" + hash, readOnly, "{\"disabled\":true}"), 403, message);
        assertManagementError(delete("/api/v1/keys/" + hash, readOnly), 403, message);
        // Even a malformed write is refused for its access first.
        assertManagementError(post("/api/v1/keys", readOnly, "{nope"), 403, message);
        assertEquals(Boolean.FALSE, get("/api/v1/keys/" + hash, readWrite).data().get("disabled"));
    }

    @Test
    void rule8UnknownDeletedAndForeignHashesAre404() {
        String mine = readWriteKey();
        String theirs = readWriteKey();
        String foreign = (String) createKey(theirs, "{\"name\":\"theirs\"}").data().get("hash");
        String deleted = (String) createKey(mine, "{\"name\":\"gone\"}").data().get("hash");
        assertEquals(200, delete("/api/v1/keys/" + deleted, mine).status());

        for (String hash : List.of("f".repeat(64), foreign, deleted, "not-a-hash", "F".repeat(63))) {
            String path = "/api/v1/keys/" + hash;
            assertManagementError(get(path, mine), 404, "API key not found");
            assertManagementError(patch(path, mine, "{\"disabled\":true}"), 404, "API key not found");
            assertManagementError(delete(path, mine), 404, "API key not found");
        }
        assertFalse(get("/api/v1/keys?include_disabled=true", mine).raw().body().contains(foreign));
        assertEquals(Boolean.FALSE, get("/api/v1/keys/" + foreign, theirs).data().get("disabled"),
                "the other account's key is untouched");
    }

    @Test
    void rule9NameIsRequiredAndAtMost128Characters() {
        String gpm = readWriteKey();
        for (String body : List.of("{}", "{\"name\":null}", "{\"name\":\"\"}", "{\"name\":\"   \"}",
                "{\"name\":\"" + "n".repeat(129) + "\"}", "{\"name\":42}", "{\"name\":\"tab\\there\"}")) {
            assertManagementError(post("/api/v1/keys", gpm, body), 400, null);
        }
        assertEquals("n".repeat(128), createKey(gpm, "{\"name\":\"" + "n".repeat(128) + "\"}").data().get("name"));
        assertEquals("trimmed", createKey(gpm, "{\"name\":\"  trimmed \"}").data().get("name"));
        assertEquals("Ünïcode ✓", createKey(gpm, "{\"name\":\"Ünïcode ✓\"}").data().get("name"));
    }

    @Test
    void patchChangesOnlyTheFieldsSentAndMovesUpdatedAt() {
        String gpm = readWriteKey();
        Map<String, Object> created = createKey(gpm, "{\"name\":\"orig\",\"limit\":9,\"limit_reset\":\"daily\","
                + "\"expires_at\":\"" + future(Duration.ofDays(2)) + "\"}").data();
        String hash = (String) created.get("hash");

        Map<String, Object> disabled = patch("/api/v1/keys/" + hash, gpm, "{\"disabled\":true}").data();
        assertEquals(Boolean.TRUE, disabled.get("disabled"));
        assertEquals("orig", disabled.get("name"));
        assertUsd("9", disabled.get("limit"));
        assertEquals("daily", disabled.get("limit_reset"));
        assertEquals(created.get("expires_at"), disabled.get("expires_at"));
        assertEquals(created.get("created_at"), disabled.get("created_at"));
        assertTrue(Instant.parse((String) disabled.get("updated_at"))
                .isAfter(Instant.parse((String) created.get("updated_at"))), "updated_at moves on every write");

        Map<String, Object> renamed = patch("/api/v1/keys/" + hash, gpm, "{\"name\":\"new\",\"disabled\":false}")
                .data();
        assertEquals("new", renamed.get("name"));
        assertEquals(Boolean.FALSE, renamed.get("disabled"));
        assertNotEquals(disabled.get("updated_at"), renamed.get("updated_at"));

        Map<String, Object> empty = patch("/api/v1/keys/" + hash, gpm, "{}").data();
        assertEquals("new", empty.get("name"));
        assertNotEquals(renamed.get("updated_at"), empty.get("updated_at"));

        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"name\":null}"), 400, null);
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"disabled\":null}"), 400, null);
        assertManagementError(patch("/api/v1/keys/" + hash, gpm, "{\"disabled\":\"true\"}"), 400, null);
    }

    @Test
    void deleteAnswers200DeletedTrueAndTheHashIsGoneEverywhere() {
        String gpm = readWriteKey();
        String hash = (String) createKey(gpm, "{\"name\":\"x\"}").data().get("hash");
        Reply reply = delete("/api/v1/keys/" + hash, gpm);
        assertEquals(200, reply.status());
        assertEquals(Map.of("deleted", true), reply.json());
        assertTrue(reply.header("content-type").startsWith("application/json"));
        assertManagementError(get("/api/v1/keys/" + hash, gpm), 404, "API key not found");
        assertManagementError(delete("/api/v1/keys/" + hash, gpm), 404, "API key not found");
        assertFalse(get("/api/v1/keys?include_disabled=true", gpm).raw().body().contains(hash));
    }

    @Test
    void listIsNewestFirstAtMost100AndPagesWithOffset() {
        String gpm = readWriteKey();
        for (int i = 0; i < 105; i++) {
            clock.advance(Duration.ofMillis(1));
            createKey(gpm, "{\"name\":\"k" + i + "\"}");
        }
        List<Map<String, Object>> first = get("/api/v1/keys", gpm).dataList();
        assertEquals(100, first.size());
        assertEquals("k104", first.get(0).get("name"));
        assertEquals("k5", first.get(99).get("name"));
        List<Map<String, Object>> second = get("/api/v1/keys?offset=100", gpm).dataList();
        assertEquals(List.of("k4", "k3", "k2", "k1", "k0"), second.stream().map(k -> k.get("name")).toList());
        assertEquals(List.of(), get("/api/v1/keys?offset=10000", gpm).dataList());
        for (int i = 1; i < first.size(); i++) {
            assertTrue(((String) first.get(i - 1).get("created_at")).compareTo((String) first.get(i).get("created_at"))
                    >= 0);
        }
    }

    @Test
    void listHidesDisabledKeysUnlessAskedAndAlwaysHidesDeletedOnes() {
        String gpm = readWriteKey();
        String enabled = (String) createKey(gpm, "{\"name\":\"on\"}").data().get("hash");
        String disabled = (String) createKey(gpm, "{\"name\":\"off\"}").data().get("hash");
        patch("/api/v1/keys/" + disabled, gpm, "{\"disabled\":true}");
        List<Object> plain = get("/api/v1/keys", gpm).dataList().stream().map(k -> k.get("hash")).toList();
        assertEquals(List.of(enabled), plain);
        for (String flag : List.of("true", "TRUE", "True")) {
            List<Object> all = get("/api/v1/keys?include_disabled=" + flag, gpm).dataList().stream()
                    .map(k -> k.get("hash")).toList();
            assertEquals(List.of(disabled, enabled), all);
        }
        assertEquals(List.of(enabled), get("/api/v1/keys?include_disabled=false", gpm).dataList().stream()
                .map(k -> k.get("hash")).toList());
    }

    @Test
    void usageAndLimitRemainingFollowTheSpendInTheKeysWindow() {
        String gpm = readWriteKey();
        String daily = (String) createKey(gpm, "{\"name\":\"d\",\"limit\":1,\"limit_reset\":\"daily\"}").data()
                .get("hash");
        var key = apiKeys.findByHash(new KeyHash(daily)).orElseThrow();
        spend.record(key.id(), Usd.ofMicros(250_000), clock.instant());
        spend.record(key.id(), Usd.ofMicros(900_000), clock.instant().minus(Duration.ofDays(40)));

        Map<String, Object> data = get("/api/v1/keys/" + daily, gpm).data();
        assertUsd("1.15", data.get("usage"));
        assertUsd("0.25", data.get("usage_daily"));
        assertUsd("0.75", data.get("limit_remaining"));
        spend.record(key.id(), Usd.ofMicros(5_000_000), clock.instant());
        assertUsd("0", get("/api/v1/keys/" + daily, gpm).data().get("limit_remaining"));
    }
}
