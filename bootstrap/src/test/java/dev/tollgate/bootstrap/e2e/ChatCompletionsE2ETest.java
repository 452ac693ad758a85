package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.context.ApplicationContext;
import io.micronaut.core.type.Argument;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The model surface end to end (§2.3–2.5, §4.2, §5, §6, §7.2, sdk-contract.md): authentication, validation, quota,
 * the JSON and SSE shapes the SDKs need, and the money — every request leaves exactly one ledger row, no open hold,
 * and a balance that went down by exactly the ledger's cost. Runs on the shipped catalog (the simulator models:
 * {@code tollgate/simulator-priced} at $1 and $3 per million tokens, {@code tollgate/simulator-free}).
 */
@MicronautTest(transactional = false)
class ChatCompletionsE2ETest extends GatewayE2ETest {

    private static final String PRICED = "tollgate/simulator-priced";
    private static final String FREE = "tollgate/simulator-free";
    private static final long OPENING_MICROS = 10_000_000;
    private static final Set<String> ERROR_FIELDS = Set.of("message", "type", "code", "param");

    @Inject
    AccountRepository accounts;

    // ---------------------------------------------------------------------------------------------------------
    // Fixtures

    /** A fresh verified account ($10), its read-write management key and one regular key. */
    private record Customer(Email email, String managementKey, String key, String hash) {
    }

    private Customer customer() {
        return customer(newAccount(true), "{\"name\":\"e2e-chat\"}");
    }

    private Customer customer(Email email, String keyBody) {
        String gpm = managementKey(email, ManagementAccess.READ_WRITE);
        Reply created = createKey(gpm, keyBody);
        return new Customer(email, gpm, (String) created.json().get("key"), (String) created.data().get("hash"));
    }

    private long balanceMicros(Email email) {
        return accounts.findByEmail(email).orElseThrow().balance().micros();
    }

    private static String body(String model, String extra) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello to the "
                + "gateway\"}]" + (extra == null || extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private Reply chat(String key, String body) {
        return post("/v1/chat/completions", key, body);
    }

    /** A chat request with extra headers (e.g. {@code Accept}). */
    private Reply chat(String key, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + key);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return exchange(request.build());
    }

    private Reply sendTo(URL base, String method, String path, String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return exchange(request.build());
    }

    /** §7.2 before the first byte: the real status, JSON {@code {error:{message,type,code,param}}}, x-request-id. */
    private static Map<String, Object> assertModelError(Reply reply, int status, String code) {
        assertEquals(status, reply.status(), reply.raw().body());
        assertTrue(reply.header("content-type").startsWith("application/json"), reply.header("content-type"));
        assertNotNull(reply.header("x-request-id"), "x-request-id on errors too");
        assertTrue(reply.header("x-request-id").startsWith("req_"), reply.header("x-request-id"));
        assertNotNull(reply.json(), "the error body is JSON");
        assertEquals(Set.of("error"), reply.json().keySet());
        Map<String, Object> error = reply.error();
        assertEquals(ERROR_FIELDS, error.keySet(), "error fields: " + error);
        assertTrue(error.get("message") instanceof String m && !m.isBlank(), "message");
        assertTrue(error.get("type") instanceof String t && !t.isBlank(), "type");
        assertEquals(code, error.get("code"));
        assertFalse(reply.raw().body().contains("Exception"), "no class names: " + reply.raw().body());
        return error;
    }

    private static Connection connect() throws SQLException {
        return database();
    }

    /** A row of request_ledger. */
    private record LedgerRow(String status, long costMicros, long heldMicros, long promptTokens,
            long completionTokens, boolean streamed, String model, String provider, String keyHash) {
    }

    private static List<LedgerRow> ledgerRows(String requestId) {
        List<LedgerRow> rows = new ArrayList<>();
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT status, cost_micros, held_micros, prompt_tokens, completion_tokens, streamed, model, "
                        + "provider, key_hash FROM request_ledger WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    rows.add(new LedgerRow(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                            rs.getLong(5), rs.getBoolean(6), rs.getString(7), rs.getString(8), rs.getString(9)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    private static long openHolds(String requestId) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT count(*) FROM request_hold WHERE request_id = ?")) {
            statement.setString(1, requestId);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Settlement runs after the response: waits (bounded) for the request's one ledger row. */
    private static LedgerRow awaitSettled(String requestId) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            List<LedgerRow> rows = ledgerRows(requestId);
            if (!rows.isEmpty()) {
                assertEquals(1, rows.size(), "exactly one ledger row per request");
                assertEquals(0, openHolds(requestId), "the hold is gone once the row is written");
                return rows.get(0);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("request " + requestId + " was not settled within 15 s (open holds: "
                        + openHolds(requestId) + ")");
            }
            sleepMillis(20);
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A refused request held nothing and left no trace in the ledger. */
    private void assertNothingBilled(Reply reply, Email email, long expectedBalance) {
        String requestId = reply.header("x-request-id");
        assertNotNull(requestId);
        assertTrue(ledgerRows(requestId).isEmpty(), "no ledger row for a refused request");
        assertEquals(0, openHolds(requestId), "no hold for a refused request");
        assertEquals(expectedBalance, balanceMicros(email));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertInstanceOf(Map.class, value);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        assertInstanceOf(List.class, value);
        return (List<Object>) value;
    }

    private static long integer(Object value, String what) {
        assertTrue(value instanceof Integer || value instanceof Long, what + " must be a JSON integer: " + value);
        return ((Number) value).longValue();
    }

    private Map<String, Object> parse(String json) {
        try {
            return this.json.readValue(json, Argument.mapOf(String.class, Object.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // §5, §7.2: 401 invalid_api_key

    private record ModelRoute(String method, String path, String body) {
    }

    private static List<ModelRoute> modelRoutes() {
        return List.of(new ModelRoute("GET", "/v1/models", null),
                new ModelRoute("GET", "/v1/models/" + PRICED, null),
                new ModelRoute("POST", "/v1/chat/completions", body(PRICED, "\"max_tokens\":5")),
                new ModelRoute("POST", "/v1/chat/completions", body(PRICED, "\"max_tokens\":5,\"stream\":true")));
    }

    /** Every model route refuses the key with the same 401 body; returns that body. */
    private String assertRefusedEverywhere(String key, String what) {
        String first = null;
        for (ModelRoute route : modelRoutes()) {
            Reply reply = send(route.method(), route.path(), key, route.body());
            Map<String, Object> error = assertModelError(reply, 401, "invalid_api_key");
            assertNull(error.get("param"), what);
            if (first == null) {
                first = reply.raw().body();
            }
            assertEquals(first, reply.raw().body(), what + ": every 401 says the same");
        }
        return first;
    }

    @Test
    void missingMalformedAndUnknownKeysAre401Everywhere() {
        Set<String> bodies = new HashSet<>();
        bodies.add(assertRefusedEverywhere(null, "no Authorization header"));
        bodies.add(assertRefusedEverywhere("gp-abc", "malformed"));
        bodies.add(assertRefusedEverywhere("", "empty bearer"));
        bodies.add(assertRefusedEverywhere(RawKey.generate(KeyKind.REGULAR, new SecureRandom()).reveal(), "unknown"));
        String valid = customer().key();
        String badChecksum = valid.substring(0, valid.length() - 1) + (valid.endsWith("A") ? "B" : "A");
        bodies.add(assertRefusedEverywhere(badChecksum, "one character changed"));
        for (String header : List.of("Basic Zm9vOmJhcg==", "Token " + valid, valid)) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.getURL() + "/v1/models"))
                    .header("Authorization", header).GET().build();
            Reply reply = exchange(request);
            assertModelError(reply, 401, "invalid_api_key");
            bodies.add(reply.raw().body());
        }
        assertEquals(1, bodies.size(), "no cause can be told apart: " + bodies);
    }

    @Test
    void aManagementKeyIsRefusedOnTheModelSurface() {
        Email email = newAccount(true);
        String gpm = managementKey(email, ManagementAccess.READ_WRITE);
        assertRefusedEverywhere(gpm, "gpm- key");
        assertRefusedEverywhere(managementKey(email, ManagementAccess.READ_ONLY), "read-only gpm- key");
        assertEquals(OPENING_MICROS, balanceMicros(email));
    }

    @Test
    void disabledAndDeletedKeysAre401() {
        Customer disabled = customer();
        assertEquals(200, get("/v1/models", disabled.key()).status());
        assertEquals(200, patch("/api/v1/keys/" + disabled.hash(), disabled.managementKey(),
                "{\"disabled\":true}").status());
        String refusedBody = assertRefusedEverywhere(disabled.key(), "disabled");
        assertEquals(OPENING_MICROS, balanceMicros(disabled.email()));
        // Re-enabled, it works again.
        assertEquals(200, patch("/api/v1/keys/" + disabled.hash(), disabled.managementKey(),
                "{\"disabled\":false}").status());
        assertEquals(200, get("/v1/models", disabled.key()).status());

        Customer deleted = customer();
        assertEquals(200, get("/v1/models", deleted.key()).status());
        assertEquals(200, delete("/api/v1/keys/" + deleted.hash(), deleted.managementKey()).status());
        assertEquals(refusedBody, assertRefusedEverywhere(deleted.key(), "deleted"));
        assertEquals(OPENING_MICROS, balanceMicros(deleted.email()));
    }

    @Test
    void anExpiredKeyIs401() {
        Instant start = clock.instant();
        try {
            String expiresAt = start.plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS).toString();
            Customer expiring = customer(newAccount(true), "{\"name\":\"expiring\",\"expires_at\":\"" + expiresAt
                    + "\"}");
            assertEquals(200, get("/v1/models", expiring.key()).status());
            Reply served = chat(expiring.key(), body(FREE, "\"max_tokens\":3"));
            assertEquals(200, served.status(), served.raw().body());

            clock.set(Instant.parse(expiresAt).plusMillis(1));

            assertRefusedEverywhere(expiring.key(), "expired");
        } finally {
            clock.set(start);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // §2.3, §7.2: 404 model_not_found, before any stream

    @Test
    void anUnknownModelIs404WithJsonEvenWhenStreamingWasAsked() {
        Customer customer = customer();
        for (String extra : List.of("\"max_tokens\":5", "\"max_tokens\":5,\"stream\":true")) {
            Reply reply = chat(customer.key(), body("tollgate/no-such-model", extra));
            Map<String, Object> error = assertModelError(reply, 404, "model_not_found");
            assertEquals("model", error.get("param"));
            assertFalse(reply.raw().body().contains("data:"), "no SSE before a real 404");
            assertNothingBilled(reply, customer.email(), OPENING_MICROS);
        }
        assertModelError(get("/v1/models/tollgate/no-such-model", customer.key()), 404, "model_not_found");
    }

    // ---------------------------------------------------------------------------------------------------------
    // §2.3: 400 naming the field

    @Test
    void invalidFieldsAre400NamingTheParam() {
        Customer customer = customer();
        String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
        String model = "\"model\":\"" + PRICED + "\"";
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{" + model + "}", "messages");
        cases.put("{" + model + ",\"messages\":[]}", "messages");
        cases.put("{" + model + ",\"messages\":\"hi\"}", "messages");
        cases.put("{" + model + ",\"messages\":{\"role\":\"user\",\"content\":\"hi\"}}", "messages");
        cases.put("{" + model + ",\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}]}", "messages[0].role");
        cases.put("{" + model + ",\"messages\":[{\"content\":\"hi\"}]}", "messages[0].role");
        cases.put("{" + messages + "}", "model");
        cases.put("{" + model + "," + messages + ",\"temperature\":3}", "temperature");
        cases.put("{" + model + "," + messages + ",\"temperature\":\"hot\"}", "temperature");
        cases.put("{" + model + "," + messages + ",\"top_p\":-0.1}", "top_p");
        cases.put("{" + model + "," + messages + ",\"frequency_penalty\":2.5}", "frequency_penalty");
        cases.put("{" + model + "," + messages + ",\"presence_penalty\":-3}", "presence_penalty");
        cases.put("{" + model + "," + messages + ",\"max_tokens\":0}", "max_tokens");
        cases.put("{" + model + "," + messages + ",\"max_tokens\":1.5}", "max_tokens");
        cases.put("{" + model + "," + messages + ",\"max_tokens\":4097}", "max_tokens"); // model cap: 4096
        cases.put("{" + model + "," + messages + ",\"max_completion_tokens\":4097}", "max_completion_tokens");
        cases.put("{" + model + "," + messages + ",\"top_logprobs\":21}", "top_logprobs");
        cases.put("{" + model + "," + messages + ",\"logprobs\":false,\"top_logprobs\":-1}", "top_logprobs");
        cases.put("{" + model + "," + messages + ",\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}", "stop");
        cases.put("{" + model + "," + messages + ",\"n\":2}", "n");
        cases.put("{" + model + "," + messages + ",\"n\":0}", "n");
        cases.put("{" + model + ",\"messages\":[{\"role\":\"user\",\"content\":[]}]}", "messages[0].content");
        cases.put("{" + model + ",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + "{\"type\":\"text\"}]}]}", "messages[0].content[1].text");
        cases.put("{" + model + ",\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"https://example.test/a.png\"}}]}," + "{\"role\":\"user\",\"content\":\"hi\"}]}",
                "messages[0].content[0].type");
        cases.put("{" + model + "," + messages + ",\"stream\":\"yes\"}", "stream");
        cases.put("{\"model\":\"" + FREE + "\"," + messages + ",\"tools\":[{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\"}}]}", "tools"); // the free simulator model has no tool support
        cases.put("{" + model + "," + messages + ",\"tool_choice\":\"required\"}", "tool_choice");
        cases.put("{" + model + "," + messages + ",\"tool_choice\":{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\"}}}", "tool_choice");
        // Tool calls replayed in the conversation, tool results and participant names: malformed ones are refused
        // here, never dropped or mangled on the way to a provider.
        String user = "{\"role\":\"user\",\"content\":\"hi\"}";
        String call = "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}";
        Map<String, String> turns = new LinkedHashMap<>();
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":\"x\"}", "messages[1].tool_calls");
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[]}", "messages[1].tool_calls");
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[5]}", "messages[1].tool_calls[0]");
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\"}]}",
                "messages[1].tool_calls[0].function");
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\",\"arguments\":\"{}\"}}]}", "messages[1].tool_calls[0].id");
        turns.put("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"function\":"
                + "{\"name\":\"f\",\"arguments\":{\"a\":1}}}]}", "messages[1].tool_calls[0].function.arguments");
        turns.put("{\"role\":\"assistant\",\"content\":null}", "messages[1].content");
        turns.put("{\"role\":\"tool\",\"content\":\"42\"}", "messages[1].tool_call_id");
        turns.put("{\"role\":\"tool\",\"content\":\"42\",\"tool_call_id\":7}", "messages[1].tool_call_id");
        turns.put("{\"role\":\"function\",\"content\":\"42\"}", "messages[1].name");
        turns.put("{\"role\":\"user\",\"content\":\"hi\",\"name\":5}", "messages[1].name");
        turns.put("{\"role\":\"user\",\"content\":\"hi\",\"tool_calls\":[" + call + "]}", "messages[1].tool_calls");
        for (Map.Entry<String, String> turn : turns.entrySet()) {
            cases.put("{" + model + ",\"messages\":[" + user + "," + turn.getKey() + "]}", turn.getValue());
        }
        cases.put("{" + model + "," + messages + ",\"response_format\":{\"type\":\"json_schema\"}}",
                "response_format.json_schema");
        cases.put("{" + model + "," + messages + ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{}}}",
                "response_format.json_schema.name");
        cases.put("{" + model + "," + messages + ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                + "{\"name\":\"s\",\"schema\":\"x\"}}}", "response_format.json_schema.schema");
        Map<String, String> functions = new LinkedHashMap<>();
        functions.put("{\"name\":\"\"}", "tools[0].function.name");
        functions.put("{\"name\":\"a b\"}", "tools[0].function.name");
        functions.put("{\"name\":\"f\",\"parameters\":\"x\"}", "tools[0].function.parameters");
        functions.put("{\"name\":\"f\",\"description\":5}", "tools[0].function.description");
        for (Map.Entry<String, String> function : functions.entrySet()) {
            cases.put("{" + model + "," + messages + ",\"tools\":[{\"type\":\"function\",\"function\":"
                    + function.getKey() + "}]}", function.getValue());
        }
        cases.put("{" + model + "," + messages + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}", "tools[1].function.name");
        cases.put("{" + model + "," + messages + ",\"tools\":[{\"type\":\"code\",\"function\":{\"name\":\"f\"}}]}",
                "tools[0].type");
        // A short text naming an enormous number is refused as it is, never written out in full in the message.
        cases.put("{" + model + "," + messages + ",\"temperature\":1e1500000000}", "temperature");
        cases.put("{" + model + "," + messages + ",\"top_p\":1e-1500000000}", "top_p");
        cases.put("{" + model + "," + messages + ",\"max_tokens\":1e999}", "max_tokens");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            for (boolean stream : List.of(false, true)) {
                String requestBody = stream && !c.getKey().contains("\"stream\"")
                        ? c.getKey().substring(0, c.getKey().length() - 1) + ",\"stream\":true}" : c.getKey();
                Reply reply = chat(customer.key(), requestBody);
                assertEquals(400, reply.status(), requestBody + " -> " + reply.raw().body());
                Map<String, Object> error = assertModelError(reply, 400, (String) map(reply.json().get("error"))
                        .get("code"));
                assertInstanceOf(String.class, error.get("code"), "a string code");
                assertEquals("invalid_request_error", error.get("type"), requestBody);
                assertEquals(c.getValue(), error.get("param"), requestBody + " -> " + error);
                assertTrue(reply.raw().body().length() < 1_000, "a short message: " + reply.raw().body().length());
                assertNothingBilled(reply, customer.email(), OPENING_MICROS);
            }
        }
        for (String broken : List.of("{", "[]", "not json", "{\"model\":\"x\",\"model\":\"y\"}",
                "{" + model + ",\"messages\":[{\"role\":\"user\",\"role\":\"system\",\"content\":\"hi\"}]}",
                "{" + model + "," + messages + ",\"response_format\":{\"type\":\"text\",\"type\":\"json_object\"}}")) {
            Reply reply = chat(customer.key(), broken);
            assertModelError(reply, 400, (String) map(reply.json().get("error")).get("code"));
        }
    }

    @Test
    void everyTextThatGoesUpstreamIsPromptInTheHoldAndTheCharge() {
        Customer customer = customer();
        String big = "lorem ipsum dolor sit amet ".repeat(100).strip();
        Reply plain = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"go\"}]}");
        assertEquals(200, plain.status(), plain.raw().body());
        long plainPrompt = integer(map(plain.json().get("usage")).get("prompt_tokens"), "prompt");
        // The same question after a tool call whose arguments are 500 words, and a participant name.
        Reply withToolCall = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"go\",\"name\":\"" + "n".repeat(60) + "\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":"
                + "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"" + big + "\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"ok\"},"
                + "{\"role\":\"user\",\"content\":\"go\"}]}");
        assertEquals(200, withToolCall.status(), withToolCall.raw().body());
        long prompt = integer(map(withToolCall.json().get("usage")).get("prompt_tokens"), "prompt");
        assertTrue(prompt > plainPrompt + 500, "the arguments count as prompt: " + plainPrompt + " vs " + prompt);
        LedgerRow row = awaitSettled(withToolCall.header("x-request-id"));
        assertEquals(prompt, row.promptTokens());
        assertTrue(row.heldMicros() >= prompt, "the hold covers the whole prompt at 1 µUSD per token: " + row);
        assertTrue(row.costMicros() >= prompt, "and so does the charge: " + row);
    }

    @Test
    void aToolChoiceWithoutToolsAsksForNothingAndCostsNothing() {
        Customer customer = customer();
        String request = "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"go\"}]";
        Reply plain = chat(customer.key(), request + "}");
        assertEquals(200, plain.status(), plain.raw().body());
        for (String choice : List.of("\"none\"", "\"auto\"")) {
            Reply reply = chat(customer.key(), request + ",\"tool_choice\":" + choice + "}");
            assertEquals(200, reply.status(), reply.raw().body());
            assertEquals(map(plain.json().get("usage")).get("prompt_tokens"),
                    map(reply.json().get("usage")).get("prompt_tokens"), "tool_choice " + choice);
        }
    }

    @Test
    void imagePartsNeedAModelThatTakesImagesAndOtherMediaAreRefused() {
        Customer customer = customer();
        Reply image = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is this?\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + "A".repeat(2000)
                + "\"}}]}]}");
        Map<String, Object> error = assertModelError(image, 400, "unsupported_parameter");
        assertEquals("messages", error.get("param"));
        assertTrue(error.get("message").toString().contains("image input"), error.toString());
        assertNothingBilled(image, customer.email(), OPENING_MICROS);
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"AAAA\",\"format\":\"wav\"}}",
                "messages[0].content[0].type");
        parts.put("{\"type\":\"file\",\"file\":{\"file_data\":\"AAAA\"}}", "messages[0].content[0].type");
        parts.put("{\"type\":\"image_url\"}", "messages[0].content[0].image_url");
        for (Map.Entry<String, String> part : parts.entrySet()) {
            Reply media = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                    + "{\"role\":\"user\",\"content\":[" + part.getKey() + "]}]}");
            Map<String, Object> refused = assertModelError(media, 400, "invalid_request");
            assertEquals(part.getValue(), refused.get("param"), part.getKey());
            assertNothingBilled(media, customer.email(), OPENING_MICROS);
        }
        Reply refusal = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":["
                + "{\"type\":\"refusal\",\"refusal\":\"I cannot\"}]},{\"role\":\"user\",\"content\":\"ok\"}]}");
        assertEquals(200, refusal.status(), "a replayed refusal part is text: " + refusal.raw().body());
    }

    @Test
    void topLogprobsWithoutLogprobsIsAcceptedAndHasNoEffect() {
        Customer customer = customer();
        for (String extra : List.of("\"max_tokens\":5,\"top_logprobs\":2", "\"max_tokens\":5,\"logprobs\":false,"
                + "\"top_logprobs\":20", "\"max_tokens\":5,\"logprobs\":null,\"top_logprobs\":0")) {
            Reply reply = chat(customer.key(), body(PRICED, extra));
            assertEquals(200, reply.status(), extra + " -> " + reply.raw().body());
            assertNull(map(((List<?>) reply.json().get("choices")).get(0)).get("logprobs"), "no logprobs were asked");
        }
    }

    @Test
    void theShippedPricedSimulatorAnswersLogprobsAsOpenAiShapesThem() {
        // What lets a client of logprobs (token confidence, classifiers) run offline: JSON answer and stream alike.
        Customer customer = customer();
        Reply reply = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"logprobs\":true,\"top_logprobs\":2"));
        assertEquals(200, reply.status(), reply.raw().body());
        Map<String, Object> choice = map(list(reply.json().get("choices")).get(0));
        Map<String, Object> logprobs = map(choice.get("logprobs"));
        assertTrue(logprobs.containsKey("refusal") && logprobs.get("refusal") == null, logprobs.toString());
        List<Object> content = list(logprobs.get("content"));
        StringBuilder tokens = new StringBuilder();
        for (Object entry : content) {
            Map<String, Object> token = map(entry);
            tokens.append(token.get("token"));
            assertEquals(2, list(token.get("top_logprobs")).size(), token.toString());
            assertEquals(token.get("token"), map(list(token.get("top_logprobs")).get(0)).get("token"));
        }
        assertEquals(map(choice.get("message")).get("content"), tokens.toString(), "one entry per token, in order");
        assertEquals(integer(map(reply.json().get("usage")).get("completion_tokens"), "completion"), content.size());

        Reply streamed = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"logprobs\":true,\"stream\":true"));
        assertEquals(200, streamed.status(), streamed.raw().body());
        List<String> data = parseSse(streamed.raw().body()).data();
        StringBuilder text = new StringBuilder();
        StringBuilder streamedTokens = new StringBuilder();
        for (String chunk : data.subList(0, data.size() - 1)) {
            List<Object> choices = list(parse(chunk).get("choices"));
            if (choices.isEmpty()) {
                continue;
            }
            Map<String, Object> delta = map(map(choices.get(0)).get("delta"));
            if (delta.get("content") instanceof String piece && !piece.isEmpty()) {
                text.append(piece);
                for (Object entry : list(map(map(choices.get(0)).get("logprobs")).get("content"))) {
                    streamedTokens.append(map(entry).get("token"));
                    assertEquals(List.of(), list(map(entry).get("top_logprobs")), "none asked for");
                }
            }
        }
        assertEquals(text.toString(), streamedTokens.toString(), "each chunk carries its own text's logprobs");
    }

    @Test
    void aModelThatCannotServeToolsNamesTools() {
        Customer customer = customer();
        Reply reply = chat(customer.key(), body(FREE,
                "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"parameters\":{}}}]"));
        Map<String, Object> error = assertModelError(reply, 400, "unsupported_parameter");
        assertEquals("tools", error.get("param"));
        assertTrue(((String) error.get("message")).contains("tools"), error.toString());
    }

    @Test
    void theShippedPricedSimulatorAnswersWithAToolCallThenWithTextAfterItsResult() throws IOException {
        // What lets clients test a tool loop (the openai SDK's runTools, tool_choice "required") offline.
        Customer customer = customer();
        String ask = "{\"role\":\"user\",\"content\":\"Weather in Paris?\"}";
        String offered = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                + "\"required\":[\"city\"]}}}],\"tool_choice\":\"required\"";
        Reply reply = chat(customer.key(),
                "{\"model\":\"" + PRICED + "\",\"messages\":[" + ask + "]," + offered + "}");
        assertEquals(200, reply.status(), reply.raw().body());
        Map<String, Object> choice = map(list(reply.json().get("choices")).get(0));
        assertEquals("tool_calls", choice.get("finish_reason"));
        Map<String, Object> message = map(choice.get("message"));
        assertNull(message.get("content"), "only a tool call: no content");
        List<Object> calls = list(message.get("tool_calls"));
        assertEquals(1, calls.size(), calls.toString());
        Map<String, Object> call = map(calls.get(0));
        assertTrue(call.get("id") instanceof String id && id.startsWith("call_"), call.toString());
        assertEquals("function", call.get("type"));
        Map<String, Object> function = map(call.get("function"));
        assertEquals("get_weather", function.get("name"));
        String arguments = (String) function.get("arguments");
        assertInstanceOf(String.class, parse(arguments).get("city"), arguments);
        long completionTokens = integer(map(reply.json().get("usage")).get("completion_tokens"), "completion");
        LedgerRow row = awaitSettled(reply.header("x-request-id"));
        assertEquals("completed", row.status());
        assertEquals(completionTokens, row.completionTokens(), "the call's pieces are billed as output");

        // Streamed: the call's head, then its arguments in fragments, as OpenAI streams them.
        Reply streamed = chat(customer.key(),
                "{\"model\":\"" + PRICED + "\",\"stream\":true,\"messages\":[" + ask + "]," + offered + "}");
        assertEquals(200, streamed.status(), streamed.raw().body());
        List<String> data = parseSse(streamed.raw().body()).data();
        assertEquals("[DONE]", data.get(data.size() - 1));
        StringBuilder fragments = new StringBuilder();
        List<Object> finishReasons = new ArrayList<>();
        Object streamedId = null;
        for (String chunk : data.subList(0, data.size() - 1)) {
            for (Object c : list(parse(chunk).get("choices"))) {
                Map<String, Object> delta = map(map(c).get("delta"));
                if (map(c).get("finish_reason") != null) {
                    finishReasons.add(map(c).get("finish_reason"));
                }
                if (delta.get("tool_calls") == null) {
                    continue;
                }
                Map<String, Object> piece = map(list(delta.get("tool_calls")).get(0));
                assertEquals(0, integer(piece.get("index"), "index"), chunk);
                if (streamedId == null) {
                    streamedId = piece.get("id");
                    assertEquals("get_weather", map(piece.get("function")).get("name"), chunk);
                }
                fragments.append((String) map(piece.get("function")).get("arguments"));
            }
        }
        assertEquals(call.get("id"), streamedId, "deterministic: the same prompt, the same call");
        assertEquals(arguments, fragments.toString());
        assertEquals(List.of("tool_calls"), finishReasons);

        // The tool's result goes back: the model answers in text, so the client's loop ends.
        String assistant = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"" + call.get("id")
                + "\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
                + json.writeValueAsString(arguments) + "}}]}";
        String result = "{\"role\":\"tool\",\"tool_call_id\":\"" + call.get("id") + "\",\"content\":\"sunny\"}";
        Reply answer = chat(customer.key(),
                "{\"model\":\"" + PRICED + "\",\"messages\":[" + ask + "," + assistant + "," + result + "],"
                        + offered + "}");
        assertEquals(200, answer.status(), answer.raw().body());
        Map<String, Object> answered = map(list(answer.json().get("choices")).get(0));
        assertEquals("stop", answered.get("finish_reason"));
        assertNull(map(answered.get("message")).get("tool_calls"), answered.toString());
        assertTrue(map(answered.get("message")).get("content") instanceof String text && !text.isBlank(),
                answered.toString());
    }

    // ---------------------------------------------------------------------------------------------------------
    // §7.2: 429 insufficient_quota

    @Test
    void aBalanceTooLowForTheHoldIs429InsufficientQuota() {
        Email broke = new Email("e2e-broke-" + java.util.UUID.randomUUID() + "@example.test");
        openAccount.open(new OpenAccountCommand(broke, true, Usd.ZERO));
        Customer customer = customer(broke, "{\"name\":\"broke\"}");
        for (String extra : List.of("\"max_tokens\":5", "\"max_tokens\":5,\"stream\":true")) {
            Reply reply = chat(customer.key(), body(PRICED, extra));
            Map<String, Object> error = assertModelError(reply, 429, "insufficient_quota");
            assertEquals("insufficient_quota", error.get("type"));
            assertEquals("false", reply.header("x-should-retry"), "the openai SDK must not retry a billing state");
            assertNull(reply.header("retry-after"), "insufficient_quota is not throttling");
            assertNothingBilled(reply, broke, 0);
        }
        // A free model holds nothing, so an empty balance still serves it.
        Reply free = chat(customer.key(), body(FREE, "\"max_tokens\":5"));
        assertEquals(200, free.status(), free.raw().body());
        LedgerRow row = awaitSettled(free.header("x-request-id"));
        assertEquals(0, row.costMicros());
        assertEquals(0, balanceMicros(broke));
        // GET /v1/models is not a billable route: still 200.
        assertEquals(200, get("/v1/models", customer.key()).status());
    }

    @Test
    void aKeyLimitBelowTheHoldIs429InsufficientQuota() {
        Email email = newAccount(true);
        // $0.001 = 1,000 µUSD. Without max_tokens the hold covers 4,096 output tokens at $3/M: about 12,300 µUSD.
        Customer customer = customer(email, "{\"name\":\"capped\",\"limit\":0.001}");
        Reply refused = chat(customer.key(), body(PRICED, null));
        assertModelError(refused, 429, "insufficient_quota");
        assertEquals("false", refused.header("x-should-retry"));
        assertNothingBilled(refused, email, OPENING_MICROS);

        // A bounded request fits under the limit and is served.
        Reply served = chat(customer.key(), body(PRICED, "\"max_tokens\":16"));
        assertEquals(200, served.status(), served.raw().body());
        LedgerRow row = awaitSettled(served.header("x-request-id"));
        assertTrue(row.heldMicros() <= 1_000, "the hold fit the limit: " + row);
        assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(email));
    }

    // ---------------------------------------------------------------------------------------------------------
    // sdk-contract.md shapes, and the money behind them

    @Test
    void aJsonCompletionHasTheSdkShapeAndIsBilledExactly() {
        Customer customer = customer();
        long before = clock.instant().getEpochSecond();
        Reply reply = chat(customer.key(), body(PRICED, "\"temperature\":0.5,\"seed\":7"));

        assertEquals(200, reply.status(), reply.raw().body());
        assertTrue(reply.header("content-type").startsWith("application/json"), reply.header("content-type"));
        String requestId = reply.header("x-request-id");
        assertNotNull(requestId);
        Map<String, Object> completion = reply.json();
        assertTrue(completion.get("id") instanceof String id && id.startsWith("chatcmpl-"), completion.toString());
        assertEquals("chat.completion", completion.get("object"));
        long created = integer(completion.get("created"), "created");
        assertTrue(Math.abs(created - before) <= 5, "created is unix seconds: " + created);
        assertEquals(PRICED, completion.get("model"));
        assertTrue(completion.containsKey("system_fingerprint"), "system_fingerprint present");
        Object fingerprint = completion.get("system_fingerprint");
        assertTrue(fingerprint == null || fingerprint instanceof String);
        List<Object> choices = list(completion.get("choices"));
        assertEquals(1, choices.size());
        Map<String, Object> choice = map(choices.get(0));
        assertEquals(0, integer(choice.get("index"), "index"));
        Map<String, Object> message = map(choice.get("message"));
        assertEquals("assistant", message.get("role"));
        assertTrue(message.get("content") instanceof String c && !c.isBlank(), "content: " + message);
        assertTrue(message.containsKey("refusal"), "refusal key present");
        assertNull(message.get("refusal"));
        assertEquals("stop", choice.get("finish_reason"));
        assertTrue(choice.containsKey("logprobs"), "logprobs key present");
        assertNull(choice.get("logprobs"));
        Map<String, Object> usage = map(completion.get("usage"));
        long prompt = integer(usage.get("prompt_tokens"), "prompt_tokens");
        long completionTokens = integer(usage.get("completion_tokens"), "completion_tokens");
        assertEquals(prompt + completionTokens, integer(usage.get("total_tokens"), "total_tokens"));
        assertTrue(prompt > 0 && completionTokens > 0, usage.toString());

        LedgerRow row = awaitSettled(requestId);
        assertEquals("completed", row.status());
        assertEquals(prompt, row.promptTokens());
        assertEquals(completionTokens, row.completionTokens());
        // $1 and $3 per million tokens: 1 µUSD per prompt token, 3 per completion token.
        assertEquals(prompt + 3 * completionTokens, row.costMicros());
        assertTrue(row.costMicros() <= row.heldMicros());
        assertFalse(row.streamed());
        assertEquals(PRICED, row.model());
        assertEquals("simulator", row.provider());
        assertEquals(customer.hash(), row.keyHash());
        assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
    }

    @Test
    void maxTokensBoundsTheAnswerAndEndsItWithLength() {
        Customer customer = customer();
        Reply reply = chat(customer.key(), body(PRICED, "\"max_tokens\":5"));
        assertEquals(200, reply.status(), reply.raw().body());
        Map<String, Object> choice = map(list(reply.json().get("choices")).get(0));
        assertEquals("length", choice.get("finish_reason"));
        long completionTokens = integer(map(reply.json().get("usage")).get("completion_tokens"), "completion");
        assertTrue(completionTokens <= 5, "at most max_tokens: " + completionTokens);
        LedgerRow row = awaitSettled(reply.header("x-request-id"));
        assertEquals(integer(map(reply.json().get("usage")).get("prompt_tokens"), "prompt") + 5 * 3,
                row.heldMicros(), "the hold is prompt + max_tokens at the model's prices");
        assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
    }

    /** One parsed SSE response. */
    private record Stream(List<String> data, List<String> otherLines) {
    }

    private static Stream parseSse(String body) {
        List<String> data = new ArrayList<>();
        List<String> other = new ArrayList<>();
        for (String line : body.split("\n", -1)) {
            if (line.startsWith("data: ")) {
                data.add(line.substring("data: ".length()));
            } else if (!line.isEmpty()) {
                other.add(line);
            }
        }
        return new Stream(data, other);
    }

    @Test
    void aStreamHasTheSdkShapeAndIsBilledExactly() {
        Customer customer = customer();
        // The openai SDK sends Accept: application/json even when streaming: only the body decides.
        Reply reply = chat(customer.key(), body(PRICED, "\"stream\":true,\"stream_options\":{\"include_usage\":true}"),
                "Accept", "application/json");

        assertEquals(200, reply.status(), reply.raw().body());
        assertTrue(reply.header("content-type").startsWith("text/event-stream"), reply.header("content-type"));
        String requestId = reply.header("x-request-id");
        assertNotNull(requestId, "x-request-id on streams too");
        Stream stream = parseSse(reply.raw().body());
        for (String line : stream.otherLines()) {
            assertTrue(line.startsWith(":"), "only data lines and comments: " + line);
        }
        List<String> data = stream.data();
        assertTrue(data.size() >= 3, data.toString());
        assertEquals("[DONE]", data.get(data.size() - 1), "the stream ends with [DONE]");
        assertEquals(1, data.stream().filter("[DONE]"::equals).count());

        List<Map<String, Object>> chunks = data.subList(0, data.size() - 1).stream().map(this::parse).toList();
        Object id = chunks.get(0).get("id");
        Object created = chunks.get(0).get("created");
        assertTrue(id instanceof String s && s.startsWith("chatcmpl-"), String.valueOf(id));
        integer(created, "created");
        StringBuilder text = new StringBuilder();
        int finishReasons = 0;
        for (int i = 0; i < chunks.size(); i++) {
            Map<String, Object> chunk = chunks.get(i);
            boolean last = i == chunks.size() - 1;
            assertEquals(id, chunk.get("id"), "same id on every chunk");
            assertEquals(created, chunk.get("created"), "same created on every chunk");
            assertEquals("chat.completion.chunk", chunk.get("object"));
            assertEquals(PRICED, chunk.get("model"));
            if (chunk.containsKey("system_fingerprint")) {
                assertInstanceOf(String.class, chunk.get("system_fingerprint"), "a string or absent, never null");
            }
            assertFalse(chunk.containsKey("error"), "no error event: " + chunk);
            List<Object> choices = list(chunk.get("choices"));
            if (last) {
                assertTrue(choices.isEmpty(), "the usage chunk has no choices");
                assertTrue(chunk.containsKey("usage"), "usage on the final chunk");
                continue;
            }
            assertFalse(chunk.containsKey("usage"), "usage only on the final chunk (never usage: null): " + chunk);
            assertEquals(1, choices.size());
            for (Object c : choices) {
                Map<String, Object> choice = map(c);
                assertEquals(0, integer(choice.get("index"), "index"));
                assertTrue(choice.containsKey("finish_reason"), "every choice has a finish_reason key: " + choice);
                Map<String, Object> delta = map(choice.get("delta"));
                if (delta.containsKey("role")) {
                    assertEquals("assistant", delta.get("role"), "role absent or assistant, never null");
                }
                if (delta.get("content") != null) {
                    text.append((String) delta.get("content"));
                }
                if (choice.get("finish_reason") != null) {
                    finishReasons++;
                    assertEquals("stop", choice.get("finish_reason"));
                    assertEquals(chunks.size() - 2, i, "finish_reason on the last choice chunk only");
                }
            }
        }
        assertEquals(1, finishReasons);
        assertFalse(text.toString().isBlank(), "text arrived in delta.content");
        Map<String, Object> usage = map(chunks.get(chunks.size() - 1).get("usage"));
        long prompt = integer(usage.get("prompt_tokens"), "prompt_tokens");
        long completionTokens = integer(usage.get("completion_tokens"), "completion_tokens");
        assertEquals(prompt + completionTokens, integer(usage.get("total_tokens"), "total_tokens"));

        LedgerRow row = awaitSettled(requestId);
        assertEquals("completed", row.status());
        assertTrue(row.streamed());
        assertEquals(prompt, row.promptTokens());
        assertEquals(completionTokens, row.completionTokens());
        assertEquals(prompt + 3 * completionTokens, row.costMicros());
        assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
    }

    /**
     * Without {@code stream_options.include_usage: true} a stream has no usage chunk, as with OpenAI: a client that
     * did not ask may read {@code choices[0]} of every chunk (OpenAI's own Python example does). Billed all the same.
     */
    @Test
    void aStreamEndsWithTheUsageChunkOnlyWhenItWasAskedFor() {
        Customer customer = customer();
        for (String extra : List.of("\"stream\":true", "\"stream\":true,\"stream_options\":{}",
                "\"stream\":true,\"stream_options\":{\"include_usage\":false}")) {
            Reply reply = chat(customer.key(), body(PRICED, "\"max_tokens\":5," + extra));
            assertEquals(200, reply.status(), reply.raw().body());
            List<String> data = parseSse(reply.raw().body()).data();
            assertEquals("[DONE]", data.get(data.size() - 1));
            for (String chunk : data.subList(0, data.size() - 1)) {
                Map<String, Object> parsed = parse(chunk);
                assertEquals(1, list(parsed.get("choices")).size(), extra + ": every chunk has its choice: " + chunk);
                assertFalse(parsed.containsKey("usage"), extra + ": " + chunk);
            }
            assertTrue(awaitSettled(reply.header("x-request-id")).costMicros() > 0, "billed without the chunk");
        }
        Reply asked = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"stream\":true,"
                + "\"stream_options\":{\"include_usage\":true}"));
        List<String> data = parseSse(asked.raw().body()).data();
        Map<String, Object> last = parse(data.get(data.size() - 2));
        assertTrue(list(last.get("choices")).isEmpty(), "the usage chunk: " + last);
        assertTrue(last.containsKey("usage"));
    }

    /** The assistant message the gateway answers when a provider refuses, sent back as history, is accepted. */
    @Test
    void anAssistantRefusalWithoutContentIsAcceptedAsHistory() {
        Customer customer = customer();
        Reply replayed = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
                + "\"refusal\":\"I can't help with that\"},{\"role\":\"user\",\"content\":\"please\"}]}");
        assertEquals(200, replayed.status(), replayed.raw().body());

        Reply onUser = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hi\",\"refusal\":\"no\"}]}");
        assertEquals("messages[0].refusal", assertModelError(onUser, 400, "invalid_request").get("param"));
        Reply notText = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":5,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
                + "\"refusal\":7},{\"role\":\"user\",\"content\":\"please\"}]}");
        assertEquals("messages[1].refusal", assertModelError(notText, 400, "invalid_request").get("param"));
        assertNothingBilled(notText, customer.email(), OPENING_MICROS - awaitSettled(
                replayed.header("x-request-id")).costMicros());
    }

    /** OpenAI's deprecated function calling is refused with what to send instead, never silently ignored. */
    @Test
    void legacyFunctionCallingIsRefusedNamingTheField() {
        Customer customer = customer();
        Reply functions = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"functions\":[{\"name\":\"f\","
                + "\"parameters\":{\"type\":\"object\"}}]"));
        Map<String, Object> error = assertModelError(functions, 400, "invalid_request");
        assertEquals("functions", error.get("param"));
        assertTrue(((String) error.get("message")).contains("tools"), error.toString());
        assertNothingBilled(functions, customer.email(), OPENING_MICROS);
        Reply forced = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"function_call\":{\"name\":\"f\"}"));
        assertEquals("function_call", assertModelError(forced, 400, "invalid_request").get("param"));
        Reply parallel = chat(customer.key(), body(PRICED, "\"max_tokens\":5,\"tools\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"f\"}}],\"parallel_tool_calls\":\"no\""));
        assertEquals("parallel_tool_calls", assertModelError(parallel, 400, "invalid_request").get("param"));
        for (String harmless : List.of("\"functions\":[]", "\"function_call\":\"none\"", "\"function_call\":\"auto\"",
                "\"functions\":null", "\"parallel_tool_calls\":false")) {
            assertEquals(200, chat(customer.key(), body(FREE, "\"max_tokens\":3," + harmless)).status(), harmless);
        }
    }

    /** A prompt (or prompt and max_tokens) beyond the model's context: OpenAI's code, which frameworks look for. */
    @Test
    void aPromptBeyondTheContextLengthHasOpenAisCode() {
        Customer customer = customer();
        String prompt = "word ".repeat(17_000).strip();
        Reply tooLong = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + prompt + "\"}]}");
        Map<String, Object> error = assertModelError(tooLong, 400, "context_length_exceeded");
        assertEquals("messages", error.get("param"));
        assertEquals("invalid_request_error", error.get("type"));
        assertNothingBilled(tooLong, customer.email(), OPENING_MICROS);

        String half = "word ".repeat(15_000).strip();
        Reply withOutput = chat(customer.key(), "{\"model\":\"" + PRICED + "\",\"max_tokens\":4000,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + half + "\"}]}");
        assertEquals("max_tokens", assertModelError(withOutput, 400, "context_length_exceeded").get("param"));
    }

    /** An id longer than any model id is a model that does not exist: 404, on both routes. */
    @Test
    void aModelIdLongerThanAnyIs404() {
        Customer customer = customer();
        String id = "a".repeat(300);
        assertModelError(get("/v1/models/" + id, customer.key()), 404, "model_not_found");
        Reply chat = chat(customer.key(), body(id, "\"max_tokens\":5"));
        Map<String, Object> error = assertModelError(chat, 404, "model_not_found");
        assertEquals("model", error.get("param"));
        assertTrue(((String) error.get("message")).length() < 300, "the id is not echoed whole");
    }

    @Test
    void theBodyNotAcceptDecidesJson() {
        Customer customer = customer();
        Reply reply = chat(customer.key(), body(FREE, "\"max_tokens\":3"), "Accept", "text/event-stream");
        assertEquals(200, reply.status(), reply.raw().body());
        assertTrue(reply.header("content-type").startsWith("application/json"), reply.header("content-type"));
        assertEquals("chat.completion", reply.json().get("object"));
        assertEquals(0, awaitSettled(reply.header("x-request-id")).costMicros());
    }

    @Test
    void theBalanceGoesDownByExactlyTheLedgerAcrossRequests() throws SQLException {
        Customer customer = customer();
        Customer sibling = customer(customer.email(), "{\"name\":\"sibling\"}"); // same account, second key
        List<String> requestIds = new ArrayList<>();
        requestIds.add(chat(customer.key(), body(PRICED, "\"max_tokens\":7")).header("x-request-id"));
        requestIds.add(chat(sibling.key(), body(PRICED, "\"stream\":true")).header("x-request-id"));
        requestIds.add(chat(customer.key(), body(FREE, null)).header("x-request-id"));
        requestIds.add(chat(sibling.key(), body(PRICED, "\"max_tokens\":4096")).header("x-request-id"));

        assertEquals(requestIds.size(), new HashSet<>(requestIds).size(), "a distinct request id per request");
        long charged = 0;
        for (String requestId : requestIds) {
            charged += awaitSettled(requestId).costMicros();
        }
        assertTrue(charged > 0);
        assertEquals(OPENING_MICROS - charged, balanceMicros(customer.email()), "both keys share one balance");
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT a.balance_micros + a.reserved_micros, (SELECT count(*) FROM request_hold h "
                        + "WHERE h.account_id = a.id) FROM account a WHERE a.email = ?")) {
            statement.setString(1, customer.email().value());
            try (ResultSet rs = statement.executeQuery()) {
                assertTrue(rs.next());
                // reserved_micros is this instance's slice of the balance until it is given back when idle
                assertEquals(OPENING_MICROS - charged, rs.getLong(1), "money at rest = credit - charges");
                assertEquals(0, rs.getLong(2), "no hold stays open");
            }
        }
        // The usage the control plane reports is the ledger's, key by key.
        Reply listed = get("/api/v1/keys", customer.managementKey());
        Map<String, java.math.BigDecimal> usageByHash = new HashMap<>();
        for (Map<String, Object> record : listed.dataList()) {
            usageByHash.put((String) record.get("hash"), usd(record.get("usage")));
        }
        java.math.BigDecimal total = usageByHash.get(customer.hash()).add(usageByHash.get(sibling.hash()));
        assertEquals(0, Usd.ofMicros(charged).toDollars().compareTo(total), usageByHash.toString());
    }

    // ---------------------------------------------------------------------------------------------------------
    // §2.5, §4.2: the model list

    @Test
    void theModelListShowsBothSimulatorModelsWithPrices() {
        Customer customer = customer();
        Reply list = get("/v1/models", customer.key());
        assertEquals(200, list.status(), list.raw().body());
        assertTrue(list.header("content-type").startsWith("application/json"));
        assertNotNull(list.header("x-request-id"));
        assertEquals("list", list.json().get("object"));
        Map<String, Map<String, Object>> byId = new HashMap<>();
        for (Map<String, Object> entry : list.dataList()) {
            assertEquals("model", entry.get("object"));
            integer(entry.get("created"), "created");
            assertInstanceOf(String.class, entry.get("owned_by"));
            byId.put((String) entry.get("id"), entry);
        }
        assertTrue(byId.keySet().containsAll(List.of(PRICED, FREE)), byId.keySet().toString());
        Map<String, Object> priced = byId.get(PRICED);
        assertEquals(Map.of("prompt", "0.000001", "completion", "0.000003"), priced.get("pricing"));
        assertEquals("tollgate", priced.get("owned_by"));
        assertEquals(16384, integer(priced.get("context_length"), "context_length"));
        Map<String, Object> capabilities = map(priced.get("capabilities"));
        assertEquals(java.util.Set.of("tools", "response_format", "logprobs", "seed", "images"),
                capabilities.keySet(), "every capability is listed, as a boolean");
        capabilities.values().forEach(v -> assertInstanceOf(Boolean.class, v));
        assertEquals(Boolean.FALSE, capabilities.get("images"), "the simulator takes no images");
        Map<String, Object> freePricing = map(byId.get(FREE).get("pricing"));
        assertEquals(0, new java.math.BigDecimal((String) freePricing.get("prompt")).signum());
        assertEquals(0, new java.math.BigDecimal((String) freePricing.get("completion")).signum());

        Reply one = get("/v1/models/" + PRICED, customer.key());
        assertEquals(200, one.status(), one.raw().body());
        assertEquals(priced, one.json(), "GET /v1/models/{id} returns the list's entry");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Gateways of their own: a catalog file that breaks, a slow upstream

    private static final String SHIPPED_CATALOG = "/catalog/default-catalog.yml";

    private static String shippedCatalog() {
        try (InputStream in = ChatCompletionsE2ETest.class.getResourceAsStream(SHIPPED_CATALOG)) {
            assertNotNull(in, "the shipped catalog is on the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ApplicationContext startGateway(Path catalog) {
        Map<String, Object> properties = new HashMap<>(getProperties());
        properties.put("tollgate.catalog", catalog.toString());
        properties.put("tollgate.catalog-check-interval", "0s"); // see each edit of the file at once
        return ApplicationContext.run(EmbeddedServer.class, properties).getApplicationContext();
    }

    /**
     * A catalog of one model ({@code context-length} 4096, {@code max-output-tokens} 64) with a route to each of the
     * given providers (name → its YAML settings), in name order, all priced $1 per million tokens.
     */
    private static String testCatalog(String model, Map<String, String> providers) {
        StringBuilder yaml = new StringBuilder("providers:\n");
        new java.util.TreeMap<>(providers).forEach((name, settings) ->
                yaml.append("  ").append(name).append(": ").append(settings).append('\n'));
        yaml.append("models:\n  - id: ").append(model).append("\n    context-length: 4096\n")
                .append("    max-output-tokens: 64\n    routes:\n");
        new java.util.TreeMap<>(providers).keySet().forEach(name -> yaml.append("      - {provider: ").append(name)
                .append(", model: ").append(name).append(", input-usd-per-million: \"1\", ")
                .append("output-usd-per-million: \"1\"}\n"));
        return yaml.toString();
    }

    /** A test against a gateway of its own: gets the gateway's base URL. */
    private interface GatewayTest {
        void run(URL base) throws IOException;
    }

    /** Runs {@code test} against a gateway of its own that serves {@code catalogYaml}, then stops it. */
    private void withGateway(String catalogYaml, GatewayTest test) throws IOException {
        Path catalog = Files.createTempFile("tollgate-catalog", ".yml");
        write(catalog, catalogYaml, Instant.now().minusSeconds(60));
        try (ApplicationContext gateway = startGateway(catalog)) {
            test.run(gateway.getBean(EmbeddedServer.class).getURL());
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    private static void write(Path file, String content, Instant modified) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Files.setLastModifiedTime(file, FileTime.from(modified)); // a new version even within the clock's granularity
    }

    @Test
    void anUnreadableCatalogIs503ServiceUnavailableUntilItIsFixed() throws IOException {
        Path catalog = Files.createTempFile("tollgate-catalog", ".yml");
        write(catalog, shippedCatalog(), Instant.now().minusSeconds(60));
        Customer customer = customer();
        try (ApplicationContext gateway = startGateway(catalog)) {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            assertEquals(200, sendTo(base, "GET", "/v1/models", customer.key(), null).status());
            Reply served = sendTo(base, "POST", "/v1/chat/completions", customer.key(), body(FREE, "\"max_tokens\":3"));
            assertEquals(200, served.status(), served.raw().body());

            write(catalog, "models: [ {id: broken\nproviders: : :\n", Instant.now().minusSeconds(30));

            Reply models = sendTo(base, "GET", "/v1/models", customer.key(), null);
            Map<String, Object> error = assertModelError(models, 503, "service_unavailable");
            assertEquals("api_error", error.get("type"));
            assertFalse(models.raw().body().contains(catalog.getFileName().toString()),
                    "the file and the parser's words are for the operator's log: " + models.raw().body());
            assertModelError(sendTo(base, "GET", "/v1/models/" + PRICED, customer.key(), null), 503,
                    "service_unavailable");
            Reply completion = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                    body(PRICED, "\"max_tokens\":5"));
            assertModelError(completion, 503, "service_unavailable");
            assertEquals("2", models.header("retry-after"), "a short wait: the file is looked at again soon");
            assertEquals("2", completion.header("retry-after"));
            assertNothingBilled(completion, customer.email(), OPENING_MICROS);
            // Authentication still comes first.
            assertModelError(sendTo(base, "GET", "/v1/models", "gp-nope", null), 401, "invalid_api_key");
            // Not ready for traffic, so a load balancer sends it elsewhere; alive all the same.
            assertEquals(503, sendTo(base, "GET", "/health/readiness", null, null).status());
            assertEquals(503, sendTo(base, "GET", "/health", null, null).status());
            assertEquals(200, sendTo(base, "GET", "/health/liveness", null, null).status());

            write(catalog, shippedCatalog(), Instant.now());
            assertEquals(200, sendTo(base, "GET", "/health/readiness", null, null).status(), "ready again");
            assertEquals(200, sendTo(base, "GET", "/v1/models", customer.key(), null).status(), "recovers");
            Reply again = sendTo(base, "POST", "/v1/chat/completions", customer.key(), body(FREE, "\"max_tokens\":3"));
            assertEquals(200, again.status(), again.raw().body());
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    @Test
    void aStreamStillRunningWhenTheGatewayStopsIsEndedAndBilledForWhatItDelivered() throws Exception {
        // A stream of 200 tokens at 20 a second outlives any short grace period: when the gateway stops, it must
        // end with a terminal error event and be billed for what was delivered, not leave its hold to expire unbilled.
        String slow = """
                providers:
                  slow: {type: simulator, time-to-first-token-ms: 1, tokens-per-second: 20, output-tokens: 200}
                models:
                  - id: test/slow
                    context-length: 4096
                    max-output-tokens: 1024
                    routes:
                      - provider: slow
                        model: slow
                        input-usd-per-million: "1000"
                        output-usd-per-million: "1000"
                """;
        Path catalog = Files.createTempFile("tollgate-catalog", ".yml");
        write(catalog, slow, Instant.now().minusSeconds(60));
        Customer customer = customer();
        ApplicationContext gateway = startGateway(catalog);
        try {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            java.net.http.HttpResponse<java.util.stream.Stream<String>> stream = java.net.http.HttpClient
                    .newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                            .header("Authorization", "Bearer " + customer.key())
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body("test/slow", "\"stream\":true")))
                            .build(), java.net.http.HttpResponse.BodyHandlers.ofLines());
            assertEquals(200, stream.statusCode());
            String requestId = stream.headers().firstValue("x-request-id").orElseThrow();
            java.util.Iterator<String> lines = stream.body().iterator();
            int deltas = 0;
            while (deltas < 5 && lines.hasNext()) {
                if (lines.next().contains("\"content\":\" ")) {
                    deltas++;
                }
            }
            assertEquals(5, deltas);

            gateway.close(); // as after the grace period: what still runs is ended

            List<String> rest = new ArrayList<>();
            lines.forEachRemaining(rest::add);
            assertTrue(rest.stream().anyMatch(l -> l.contains("\"code\":\"service_unavailable\"")),
                    "a terminal error event: " + rest);
            LedgerRow row = awaitSettled(requestId);
            assertEquals("failed", row.status());
            assertTrue(row.completionTokens() >= 5 && row.completionTokens() < 200, "what was delivered: " + row);
            assertEquals((row.promptTokens() + row.completionTokens()) * 1000, row.costMicros(),
                    "the prompt and the delivered tokens at $1,000 per million each");
            assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
        } finally {
            gateway.close();
            Files.deleteIfExists(catalog);
        }
    }

    @Test
    void aCatalogOutageBeforeTheFirstCompletionIsStill503NotAnInternalError() throws IOException {
        // The providers are configured from the catalog file; they must be ready at start-up, so that a catalog
        // that breaks later makes completions "temporarily unavailable" rather than breaking the controller.
        Path catalog = Files.createTempFile("tollgate-catalog", ".yml");
        write(catalog, shippedCatalog(), Instant.now().minusSeconds(60));
        Customer customer = customer();
        try (ApplicationContext gateway = startGateway(catalog)) {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            assertEquals(200, sendTo(base, "GET", "/v1/models", customer.key(), null).status());

            write(catalog, "models: [ {id: broken\nproviders: : :\n", Instant.now().minusSeconds(30));

            Reply completion = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                    body(PRICED, "\"max_tokens\":5"));
            assertModelError(completion, 503, "service_unavailable");
            assertNothingBilled(completion, customer.email(), OPENING_MICROS);
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    @Test
    void everyProviderAtCapacityIs429TransferAgentCapacityReachedWithRetryAfterAndNoCharge() throws IOException {
        // §7.2 and sdk-contract.md: temporary capacity pressure, with an accurate small Retry-After; the request
        // produced nothing, so nothing is charged. Two providers, both always answering 429: fallback tried both.
        String capacity = testCatalog("test/busy", Map.of(
                "busy-a", "{type: simulator, time-to-first-token-ms: 1, fail-every: 1, fail-status: 429}",
                "busy-b", "{type: simulator, time-to-first-token-ms: 1, fail-every: 1, fail-status: 429}"));
        Customer customer = customer();
        withGateway(capacity, base -> {
            for (String extra : List.of("\"max_tokens\":5", "\"max_tokens\":5,\"stream\":true")) {
                Reply reply = sendTo(base, "POST", "/v1/chat/completions", customer.key(), body("test/busy", extra));
                assertModelError(reply, 429, "transfer_agent_capacity_reached");
                String retryAfter = reply.header("Retry-After");
                assertNotNull(retryAfter, "Retry-After on " + extra);
                int seconds = Integer.parseInt(retryAfter);
                assertTrue(seconds >= 1 && seconds <= 8, "a small, positive Retry-After: " + retryAfter);
                // The hold was placed, then released in full: one terminal ledger row at no cost.
                String requestId = reply.header("x-request-id");
                assertEquals(0, awaitSettled(requestId).costMicros());
                assertEquals(0, openHolds(requestId));
                assertEquals(OPENING_MICROS, balanceMicros(customer.email()));
            }
            // Monitoring sees every failed attempt, per provider and status (issue: "upstream errors by provider").
            String metrics = sendTo(base, "GET", "/prometheus", null, null).raw().body();
            for (String provider : List.of("busy-a", "busy-b")) {
                assertTrue(metrics.lines().anyMatch(l -> l.startsWith("tollgate_upstream_errors_total{")
                        && l.contains("provider=\"" + provider + "\"") && l.contains("status=\"429\"")),
                        provider + " in " + metrics.lines().filter(l -> l.contains("upstream")).toList());
            }
        });
    }

    @Test
    void anUpstreamThatFailsMidAnswerIs502ForJsonAndOneErrorEventForAStream() throws IOException {
        // §2.4/§7.2 and sdk-contract.md: a non-streaming answer has not sent its status yet, so a provider failing
        // half-way is a 5xx, never a 200 without choices; a stream that began ends with one terminal error event.
        // Either way the client pays for what the provider produced.
        String failing = testCatalog("test/halfway", Map.of("halfway", "{type: simulator, "
                + "time-to-first-token-ms: 1, tokens-per-second: 0, output-tokens: 10, fail-every: 1, "
                + "fail-mode: mid-stream}"));
        Customer customer = customer();
        withGateway(failing, base -> {
            Reply json = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                    body("test/halfway", "\"max_tokens\":20"));
            Map<String, Object> error = assertModelError(json, 502, "upstream_error");
            assertEquals("api_error", error.get("type"));
            assertTrue(((String) error.get("message")).contains("billed"), "the client is told: " + error);
            assertNull(json.header("x-should-retry"), "§7.2: a 5xx is worth a retry with bounded backoff, though "
                    + "the retry is billed again");
            LedgerRow row = awaitSettled(json.header("x-request-id"));
            assertEquals("failed", row.status());
            assertTrue(row.costMicros() > 0, "the prompt and the 5 tokens produced are billed: " + row);

            Reply stream = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                    body("test/halfway", "\"max_tokens\":20,\"stream\":true"));
            assertEquals(200, stream.status(), "the stream had begun");
            List<String> events = parseSse(stream.raw().body()).data();
            assertTrue(events.get(events.size() - 1).contains("\"upstream_error\""), "one terminal error: " + events);
            // §6.7's error object, in a chunk of the stream whose choice ends coded (G14).
            Map<String, Object> terminal = parse(events.get(events.size() - 1));
            assertEquals(Set.of("message", "type", "code"), ((Map<?, ?>) terminal.get("error")).keySet(),
                    terminal.toString());
            assertEquals("chat.completion.chunk", terminal.get("object"));
            assertEquals(parse(events.get(0)).get("id"), terminal.get("id"), "the stream's id");
            assertEquals("error", ((Map<?, ?>) ((List<?>) terminal.get("choices")).get(0)).get("finish_reason"));
            assertEquals(1, events.stream().filter(e -> e.contains("\"error\":{")).count(), "exactly one");
        });
    }

    @Test
    void reasoningAndRefusalFromAnOpenAiCompatibleProviderReachTheClientAndAreBilled() throws IOException {
        // A reasoning model behind vLLM or OpenRouter streams its reasoning before the answer; an OpenAI model may
        // refuse in delta.refusal. Both reach the client in the fields its SDK reads, and without reported usage
        // their words are billed like the content's.
        try (SseUpstream upstream = new SseUpstream(List.of("{\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                        + "\"assistant\",\"reasoning_content\":\"Weighing it up.\"},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Partly.\"},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I cannot say more.\"},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}", "[DONE]"), body -> { })) {
            String catalogText = testCatalog("test/thinker",
                    Map.of("thinker", "{type: openai, base-url: \"" + upstream.baseUrl() + "\"}"));
            Customer customer = customer();
            withGateway(catalogText, base -> {
                Reply json = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                        body("test/thinker", "\"max_tokens\":20"));
                assertEquals(200, json.status(), json.raw().body());
                Map<String, Object> message = map(map(list(json.json().get("choices")).get(0)).get("message"));
                assertEquals("Partly.", message.get("content"));
                assertEquals("I cannot say more.", message.get("refusal"));
                assertEquals("Weighing it up.", message.get("reasoning"));
                Map<String, Object> usage = map(json.json().get("usage"));
                long completion = integer(usage.get("completion_tokens"), "completion_tokens");
                assertTrue(completion >= 10, "the reasoning and the refusal are counted with the content: " + usage);
                assertEquals(completion, awaitSettled(json.header("x-request-id")).completionTokens());

                Reply stream = sendTo(base, "POST", "/v1/chat/completions", customer.key(),
                        body("test/thinker", "\"max_tokens\":20,\"stream\":true"));
                assertEquals(200, stream.status(), stream.raw().body());
                List<Object> deltas = new ArrayList<>();
                for (String data : parseSse(stream.raw().body()).data()) {
                    if (!data.equals("[DONE]") && !list(parse(data).get("choices")).isEmpty()) {
                        Map<String, Object> delta = map(map(list(parse(data).get("choices")).get(0)).get("delta"));
                        if (!delta.isEmpty() && !delta.containsKey("role")) {
                            deltas.add(delta);
                        }
                    }
                }
                assertEquals(List.of(Map.of("reasoning", "Weighing it up."), Map.of("content", "Partly."),
                        Map.of("refusal", "I cannot say more.")), deltas);
            });
        }
    }

    /** A catalog whose one model streams slowly: 5 tokens per second, 200 tokens, first token after {@code ttft}. */
    private static String slowCatalog(long ttftMillis) {
        return """
                providers:
                  slow:
                    type: simulator
                    time-to-first-token-ms: %d
                    tokens-per-second: 5
                    output-tokens: 200
                models:
                  - id: test/slow
                    context-length: 16384
                    max-output-tokens: 4096
                    routes:
                      - provider: slow
                        input-usd-per-million: "1.00"
                        output-usd-per-million: "3.00"
                """.formatted(ttftMillis);
    }

    @Test
    void anHttp10ClientGetsTheStreamUnchunkedAndEndedByTheClose() throws IOException {
        Customer customer = customer();
        URL base = server.getURL();
        for (String connection : List.of("", "Connection: keep-alive\r\n")) {
            byte[] body = ("{\"model\":\"" + FREE + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                    + "\"stream\":true,\"max_tokens\":3}").getBytes(StandardCharsets.UTF_8);
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.0\r\nAuthorization: Bearer " + customer.key()
                        + "\r\nContent-Type: application/json\r\n" + connection + "Content-Length: " + body.length
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                // Read to the end: the answer is over only when the server closes the connection.
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT);
                String events = answer.substring(answer.indexOf("\r\n\r\n") + 4);
                assertTrue(head.startsWith("http/1.0 200"), head);
                assertFalse(head.contains("transfer-encoding"), "HTTP/1.0 has no chunked framing: " + head);
                assertTrue(head.contains("connection: close"), head);
                assertTrue(events.startsWith("data: {"), "no chunk-size line before the first event: " + events);
                assertTrue(events.endsWith("data: [DONE]\n\n"), events);
            }
        }
    }

    /** Opens a raw streaming request; the caller reads and then closes the socket like a client that gives up. */
    private static Socket openStream(URL base, String key, String body) throws IOException {
        Socket socket = new Socket(base.getHost(), base.getPort());
        socket.setSoTimeout(10_000);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/chat/completions HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                + "\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/json\r\nAccept: "
                + "text/event-stream\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    /** Reads until {@code count} occurrences of {@code marker} arrived; returns the text read. */
    private static String readUntil(InputStream in, String marker, int count) throws IOException {
        StringBuilder text = new StringBuilder();
        byte[] buffer = new byte[4096];
        while (occurrences(text.toString(), marker) < count) {
            int n = in.read(buffer);
            if (n < 0) {
                throw new AssertionError("the stream ended early: " + text);
            }
            text.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        }
        return text.toString();
    }

    private static int occurrences(String text, String marker) {
        int count = 0;
        for (int at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length())) {
            count++;
        }
        return count;
    }

    private static String requestIdOf(String rawResponse) {
        for (String line : rawResponse.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("x-request-id:")) {
                return line.substring("x-request-id:".length()).strip();
            }
        }
        throw new AssertionError("no x-request-id in " + rawResponse);
    }

    @Test
    void aClientThatLeavesMidStreamPaysOnlyForWhatWasDelivered() throws IOException {
        Path catalog = Files.createTempFile("tollgate-slow", ".yml");
        write(catalog, slowCatalog(20), Instant.now().minusSeconds(60));
        Customer customer = customer();
        try (ApplicationContext gateway = startGateway(catalog)) {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            String requestId;
            try (Socket socket = openStream(base, customer.key(), "{\"model\":\"test/slow\",\"stream\":true,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"count slowly\"}]}")) {
                String received = readUntil(socket.getInputStream(), "\"content\":\"", 4); // role chunk + 3 words
                assertTrue(received.startsWith("HTTP/1.1 200"), received);
                requestId = requestIdOf(received);
            } // the client is gone after 3 of 200 tokens

            LedgerRow row = awaitSettled(requestId);
            assertEquals("cancelled", row.status());
            assertTrue(row.completionTokens() >= 3, "at least the tokens the client read: " + row);
            assertTrue(row.completionTokens() < 20, "the upstream stopped soon after the client left: " + row);
            assertEquals(row.promptTokens() + 3 * row.completionTokens(), row.costMicros(),
                    "prompt and delivered tokens, nothing more");
            assertTrue(row.costMicros() < row.heldMicros(), "never the full hold");
            assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    @Test
    void aClientThatLeavesBeforeTheFirstTokenIsCancelledPromptly() throws IOException {
        Path catalog = Files.createTempFile("tollgate-slow", ".yml");
        write(catalog, slowCatalog(6_000), Instant.now().minusSeconds(60)); // 6 s to the first token
        Customer customer = customer();
        try (ApplicationContext gateway = startGateway(catalog)) {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            String marker = "{\"role\":\"user\",\"content\":\"abort-" + java.util.UUID.randomUUID() + "\"}";
            Socket socket = openStream(base, customer.key(), "{\"model\":\"test/slow\",\"stream\":true,"
                    + "\"messages\":[" + marker + "]}");
            sleepMillis(500); // the request is admitted and waits for its first token
            long abortedAt = System.nanoTime();
            socket.close();

            // G13: the gateway notices within a second (not when the upstream finally answers) and settles.
            String requestId = null;
            while (requestId == null && System.nanoTime() - abortedAt < TimeUnit.SECONDS.toNanos(10)) {
                requestId = settledRequestOf(customer.hash());
                if (requestId == null) {
                    sleepMillis(20);
                }
            }
            long settledAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - abortedAt);
            assertNotNull(requestId, "the abandoned request was never settled");
            LedgerRow row = awaitSettled(requestId);
            assertTrue(settledAfterMillis <= 1_000, "cancelled " + settledAfterMillis + " ms after the client left "
                    + "(the first token was due 6 s after the request); settled as " + row);
            assertEquals("cancelled", row.status());
            assertEquals(0, row.costMicros(), "nothing was delivered: " + row);
            assertEquals(OPENING_MICROS, balanceMicros(customer.email()));
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    @Test
    void aClientThatLeavesANonStreamingRequestCancelsItPromptly() throws IOException {
        Path catalog = Files.createTempFile("tollgate-slow", ".yml");
        write(catalog, slowCatalog(20), Instant.now().minusSeconds(60)); // 200 tokens at 5 per second: 40 s
        Customer customer = customer();
        try (ApplicationContext gateway = startGateway(catalog)) {
            URL base = gateway.getBean(EmbeddedServer.class).getURL();
            Socket socket = openStream(base, customer.key(), "{\"model\":\"test/slow\","
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"a long answer please\"}]}");
            sleepMillis(1_000); // a few tokens are generated, none can reach the client before the end
            long abortedAt = System.nanoTime();
            socket.close();

            String requestId = null;
            while (requestId == null && System.nanoTime() - abortedAt < TimeUnit.SECONDS.toNanos(10)) {
                requestId = settledRequestOf(customer.hash());
                if (requestId == null) {
                    sleepMillis(20);
                }
            }
            long settledAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - abortedAt);
            assertNotNull(requestId, "G13: the request was still running 10 s after its client left (the "
                    + "upstream would have gone on for about 40 s and been billed in full)");
            LedgerRow row = awaitSettled(requestId);
            assertTrue(settledAfterMillis <= 1_000, "cancelled " + settledAfterMillis + " ms after the client left: "
                    + row);
            assertEquals("cancelled", row.status());
            assertTrue(row.costMicros() < row.heldMicros(), "never the full hold: " + row);
            assertTrue(row.completionTokens() < 20, "the upstream was stopped: " + row);
            assertEquals(OPENING_MICROS - row.costMicros(), balanceMicros(customer.email()));
        } finally {
            Files.deleteIfExists(catalog);
        }
    }

    /** The request id of the key's one ledger row, or {@code null} while there is none. */
    private static String settledRequestOf(String keyHash) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT request_id FROM request_ledger WHERE key_hash = ?")) {
            statement.setString(1, keyHash);
            try (ResultSet rs = statement.executeQuery()) {
                String id = rs.next() ? rs.getString(1) : null;
                assertFalse(rs.next(), "one request, one row");
                return id;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyResponseCarriesItsOwnRequestId() {
        Customer customer = customer();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            Reply reply = get("/v1/models", customer.key());
            assertNotEquals(null, reply.header("x-request-id"));
            ids.add(reply.header("x-request-id"));
        }
        assertEquals(3, ids.size());
    }
}
