package dev.tollgate.adapter.out.upstream.anthropic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.AbstractModelProviderContractTest;
import dev.tollgate.adapter.out.upstream.common.RecordingListener;
import dev.tollgate.adapter.out.upstream.common.UpstreamHttp;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The provider contract for the Anthropic provider, against a stub speaking the Messages API stream. */
class AnthropicModelProviderTest extends AbstractModelProviderContractTest {

    @Override
    protected String path() {
        return "/v1/messages";
    }

    @Override
    protected ModelProvider provider(String baseUrl, UpstreamHttp http, JsonMapper json) {
        return new AnthropicModelProvider(new CatalogFile.ProviderSettings("stub", "anthropic",
                Map.of("base-url", baseUrl)), http, json);
    }

    @Override
    protected List<String> streamOpening() {
        return List.of("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    }

    @Override
    protected String textPiece(String text) {
        return "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text
                + "\"}}";
    }

    @Override
    protected List<String> textStream(List<String> pieces) {
        List<String> events = new ArrayList<>(streamOpening());
        pieces.forEach(p -> events.add(textPiece(p)));
        events.add("{\"type\":\"content_block_stop\",\"index\":0}");
        events.add("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}");
        events.add("{\"type\":\"message_stop\"}");
        return events;
    }

    @Override
    protected List<String> toolCallStream(List<String> argumentPieces) {
        List<String> events = new ArrayList<>();
        events.add("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}");
        events.add("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
                + "\"id\":\"call_1\",\"name\":\"lookup\",\"input\":{}}}");
        for (String piece : argumentPieces) {
            events.add("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
                    + "\"partial_json\":\"" + piece.replace("\"", "\\\"") + "\"}}");
        }
        events.add("{\"type\":\"content_block_stop\",\"index\":0}");
        events.add("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}");
        events.add("{\"type\":\"message_stop\"}");
        return events;
    }

    @Override
    protected List<String> truncatedStream() {
        List<String> events = new ArrayList<>(streamOpening());
        events.add(textPiece("par"));
        return events;
    }

    @Override
    protected void assertUpstreamRequest(String sent) {
        assertTrue(sent.contains("\"model\":\"upstream-model\""), sent);
        assertTrue(sent.contains("\"max_tokens\":16") && sent.contains("\"stream\":true"), sent);
        assertTrue(sent.contains("\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]"),
                sent);
    }

    @Test
    void aToolCalledWithoutInputHasTheEmptyObjectAsArguments() throws Exception {
        handler.set(exchange -> sse(exchange, toolCallStream(List.of(""))));
        RecordingListener recorder = callAndWait();
        assertEquals("tool_calls", recorder.finishReason);
        String all = String.join("", recorder.toolCalls);
        assertTrue(all.contains("\"arguments\":\"{}\""), "never \"\", which JSON.parse refuses: " + all);
    }

    @Test
    void aToolWhoseInputComesWholeInItsStartKeepsIt() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
                        + "\"id\":\"call_1\",\"name\":\"weather\",\"input\":{\"city\":\"Rome\"}}}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}",
                "{\"type\":\"message_stop\"}")));
        RecordingListener recorder = callAndWait();
        String all = String.join("", recorder.toolCalls);
        assertTrue(all.contains("\"arguments\":\"{\\\"city\\\":\\\"Rome\\\"}\""), all);
        assertFalse(all.contains("\"arguments\":\"{}\""), "no empty object after it, even without a block stop: "
                + all);
    }

    @Test
    void aToolCallWithoutAnIdGetsOneAndOneWithoutANameIsABrokenAnswer() throws Exception {
        // A fuzzing audit: id and name were passed on as null, and an index written as a string threw.
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":\"0\",\"content_block\":{\"type\":\"tool_use\","
                        + "\"name\":\"weather\",\"input\":{}}}",
                "{\"type\":\"content_block_delta\",\"index\":null,\"delta\":{\"type\":\"input_json_delta\","
                        + "\"partial_json\":\"{}\"}}",
                "{\"type\":\"content_block_stop\"}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}",
                "{\"type\":\"message_stop\"}")));
        RecordingListener recorder = callAndWait();
        assertNull(recorder.failure);
        assertTrue(recorder.toolCalls.get(0).matches("\\[\\{\"index\":0,\"id\":\"call_[A-Za-z0-9]{24}\",\"type\":"
                + "\"function\",\"function\":\\{\"name\":\"weather\",\"arguments\":\"\"}}]"), recorder.toolCalls.get(0));
        assertEquals("{}", String.join("", recorder.toolCalls).replaceAll(".*\"arguments\":\"([^\"]*)\".*", "$1"));

        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
                        + "\"id\":\"toolu_1\",\"input\":{}}}",
                "{\"type\":\"message_stop\"}")));
        recorder = callAndWait();
        assertEquals("stub sent a tool call without a name", recorder.failure.message());
        assertTrue(recorder.toolCalls.isEmpty());
    }

    /**
     * A black-box audit (2026-11-29): message_start's prompt count, cache included, is told at once (a stream that
     * breaks after it is billed that prompt, not the gateway's estimate), and a rate_limit_error event before any
     * output is capacity like overloaded_error (it was a plain failure, retried four times, then a 502).
     */
    @Test
    void thePromptCountIsToldAtTheStartAndARateLimitEventIsCapacity() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,"
                        + "\"cache_creation_input_tokens\":1000,\"cache_read_input_tokens\":2000,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
                "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}")));
        RecordingListener broken = callAndWait();
        assertEquals(List.of(3010L), broken.promptCounts);
        assertEquals(502, broken.failure.status());

        for (String[] kind : new String[][] {{"rate_limit_error", "429"}, {"overloaded_error", "529"}}) {
            handler.set(exchange -> sse(exchange, List.of(
                    "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}",
                    "{\"type\":\"ping\"}",
                    "{\"type\":\"error\",\"error\":{\"type\":\"" + kind[0] + "\",\"message\":\"Slow down\"}}")));
            RecordingListener limited = callAndWait();
            assertEquals(Integer.parseInt(kind[1]), limited.failure.status(), kind[0]);
            assertTrue(limited.failure.rateLimited(), kind[0] + " is capacity");
            assertTrue(limited.failure.retryable(), kind[0] + ": nothing was produced, another provider may answer");
        }
    }

    /**
     * An invalid_request_error event before any output is the request refused, as its HTTP 400 is: a 400 not retried
     * (an audit, 2026-11-29: "prompt is too long" in the stream was retried four times, then a 502); after output it
     * is a failure of the answer; a credit balance too low is the operator's standing with Anthropic: another route.
     */
    @Test
    void anInvalidRequestEventBeforeOutputIsTheRequestRefused() throws Exception {
        String start = "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}";
        handler.set(exchange -> sse(exchange, List.of(start, "{\"type\":\"error\",\"error\":{\"type\":"
                + "\"invalid_request_error\",\"message\":\"prompt is too long: 300000 tokens > 200000 maximum\"}}")));
        RecordingListener refused = callAndWait();
        assertEquals(400, refused.failure.status());
        assertFalse(refused.failure.retryable(), "the same request fails on any route");
        assertTrue(refused.failure.message().contains("prompt is too long"), refused.failure.message());

        handler.set(exchange -> sse(exchange, List.of(start,
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
                "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}")));
        assertEquals(502, callAndWait().failure.status(), "after output: the answer failed");

        handler.set(exchange -> sse(exchange, List.of(start, "{\"type\":\"error\",\"error\":{\"type\":"
                + "\"invalid_request_error\",\"message\":\"Your credit balance is too low to access the Anthropic "
                + "API.\"}}")));
        RecordingListener credit = callAndWait();
        assertTrue(credit.failure.retryable(), "another route may answer: " + credit.failure);
    }

    /**
     * message_start's output_tokens (Anthropic sends 1) is a placeholder: a server whose message_delta carries no
     * output count reports no usage, so the gateway counts the output (an audit: 20 tokens billed as 1), while the
     * prompt count from message_start is still told.
     */
    @Test
    void theOutputCountOfMessageStartIsNotTheAnswers() throws Exception {
        List<String> events = new ArrayList<>();
        events.add("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":41,\"output_tokens\":1}}}");
        for (int i = 0; i < 20; i++) {
            events.add("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
                    + "\"text\":\"w" + i + " \"}}");
        }
        events.add("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{}}");
        events.add("{\"type\":\"message_stop\"}");
        handler.set(exchange -> sse(exchange, events));
        RecordingListener recorder = callAndWait();
        assertNull(recorder.failure);
        assertEquals(20, recorder.deltas.size());
        assertEquals(List.of(41L), recorder.promptCounts);
        assertNull(recorder.usage, "no output count reported: the gateway counts it, never the placeholder 1");

        events.set(events.size() - 2,
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":20}}");
        RecordingListener reported = callAndWait();
        assertEquals(new TokenUsage(41, 20), reported.usage, "message_delta's count is the answer's");
    }

    @Test
    void usageTooLargeToBeACountIsTheLargestNotAWrappedNumber() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,"
                        + "\"cache_creation_input_tokens\":9223372036854775807,"
                        + "\"cache_read_input_tokens\":1e30,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                        + "\"usage\":{\"output_tokens\":100000000000000000000000}}",
                "{\"type\":\"message_stop\"}")));
        RecordingListener recorder = callAndWait();
        assertEquals(Long.MAX_VALUE, recorder.usage.promptTokens(), "not overflowed into a negative count");
        assertEquals(Long.MAX_VALUE, recorder.usage.completionTokens(), "not its low 64 bits");
    }

    @Test
    void aConversationWithSystemToolsAndToolResultsIsTranslated() throws Exception {
        JsonMapper json = JsonMapper.createDefault();
        List<ChatMessage> messages = List.of(
                new ChatMessage("system", "Be brief.", "{\"role\":\"system\",\"content\":\"Be brief.\"}"),
                new ChatMessage("user", "Weather in Oslo?", "{\"role\":\"user\",\"content\":\"Weather in Oslo?\"}"),
                new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":"
                        + "\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":"
                        + "\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]}"),
                new ChatMessage("tool", "4 degrees", "{\"role\":\"tool\",\"tool_call_id\":\"call_9\",\"content\":"
                        + "\"4 degrees\"}"),
                new ChatMessage("user", "Thanks", "{\"role\":\"user\",\"content\":\"Thanks\"}"));
        ChatRequest request = new ChatRequest(new ModelId("m"), messages, 100, new BigDecimal("1.5"), null, null,
                null, List.of("END"), null, false, null, null,
                "[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"parameters\":{\"type\":\"object\"}}}]",
                "\"required\"", null, true);
        ProviderRoute route = new ProviderRoute(new ProviderId("a"), "claude-x", TokenPrice.FREE, TokenPrice.FREE,
                ModelCapabilities.ALL);
        Map<String, Object> body = new AnthropicRequests(json).messagesRequest(route, request, 100);

        assertEquals("Be brief.", body.get("system"));
        assertEquals(new BigDecimal("1"), body.get("temperature"), "Anthropic's temperature tops out at 1");
        assertEquals(List.of("END"), body.get("stop_sequences"));
        String encoded = json.writeValueAsString(body);
        Map<String, Object> reparsed = json.readValue(encoded, Argument.mapOf(String.class, Object.class));
        List<?> turns = (List<?>) reparsed.get("messages");
        assertEquals(List.of("user", "assistant", "user"),
                turns.stream().map(t -> ((Map<?, ?>) t).get("role")).toList(), encoded);
        assertTrue(encoded.contains("\"type\":\"tool_use\",\"id\":\"call_9\",\"name\":\"weather\",\"input\":{\"city\":\"Oslo\"}"),
                encoded);
        assertTrue(encoded.contains("\"type\":\"tool_result\",\"tool_use_id\":\"call_9\",\"content\":\"4 degrees\""),
                encoded);
        assertTrue(encoded.contains("\"tool_choice\":{\"type\":\"any\"}"), encoded);
        assertTrue(encoded.contains("\"input_schema\":{\"type\":\"object\"}"), encoded);
        assertFalse(encoded.contains("\"role\":\"system\""), encoded);
    }

    /** A black-box audit (2026-11-29) of what Anthropic would have refused, or read differently. */
    @Test
    void legacyFunctionCallsDistinctIdsSchemasWithoutTypeAndSystemPartsAreTranslatedAsAnthropicTakesThem()
            throws Exception {
        JsonMapper json = JsonMapper.createDefault();
        ProviderRoute route = new ProviderRoute(new ProviderId("a"), "claude-x", TokenPrice.FREE, TokenPrice.FREE,
                ModelCapabilities.ALL);
        List<ChatMessage> messages = List.of(
                new ChatMessage("developer", "Rule one.Rule two.", "{\"role\":\"developer\",\"content\":[{\"type\":"
                        + "\"text\",\"text\":\"Rule one.\"},{\"type\":\"text\",\"text\":\"Rule two.\"}]}"),
                new ChatMessage("user", "weather", "{\"role\":\"user\",\"content\":\"weather\"}"),
                new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,\"function_call\":"
                        + "{\"name\":\"get_weather\",\"arguments\":\"{\\\"location\\\":\\\"Paris\\\"}\"}}"),
                new ChatMessage("function", "sunny", "{\"role\":\"function\",\"name\":\"get_weather\","
                        + "\"content\":\"sunny\"}"),
                new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                        + "{\"id\":\"call:1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
                        + "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}"),
                new ChatMessage("tool", "a", "{\"role\":\"tool\",\"tool_call_id\":\"call:1\",\"content\":\"a\"}"),
                new ChatMessage("user", "and?", "{\"role\":\"user\",\"content\":\"and?\"}"),
                new ChatMessage("tool", "b", "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"b\"}"));
        String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"noargs\",\"parameters\":{}}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"properties\":{\"x\":"
                + "{\"type\":\"string\"}}}}}]";
        ChatRequest request = new ChatRequest(new ModelId("m"), messages, 100, null, null, null, null, null, null,
                false, null, null, tools, null, null, true);
        Map<String, Object> body = new AnthropicRequests(json).messagesRequest(route, request, 100);
        String encoded = json.writeValueAsString(body);

        assertTrue(encoded.contains("\"system\":[{\"type\":\"text\",\"text\":\"Rule one.\"},{\"type\":\"text\","
                + "\"text\":\"Rule two.\"}]"), "parts are not run together: " + encoded);
        assertTrue(encoded.contains("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":"
                + "\"function_call_2\",\"name\":\"get_weather\",\"input\":{\"location\":\"Paris\"}}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"function_call_2\","
                + "\"content\":\"sunny\"}"), "the legacy call and its result match: " + encoded);
        String colon = AnthropicRequests.toolId("call:1");
        assertNotEquals("call_1", colon, "two ids stay two");
        assertTrue(encoded.contains("\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"" + colon
                + "\",\"content\":\"a\"},{\"type\":\"tool_result\",\"tool_use_id\":\"call_1\",\"content\":\"b\"},"
                + "{\"type\":\"text\",\"text\":\"and?\"}]"), "results first in the user turn: " + encoded);
        assertTrue(encoded.contains("{\"name\":\"noargs\",\"input_schema\":{\"type\":\"object\"}}"), encoded);
        assertTrue(encoded.contains("{\"name\":\"f\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"x\":"
                + "{\"type\":\"string\"}}}}"), encoded);
        assertEquals("Be brief.", new AnthropicRequests(json).messagesRequest(route, new ChatRequest(new ModelId("m"),
                List.of(new ChatMessage("system", "Be brief.", "{\"role\":\"system\",\"content\":\"Be brief.\"}"),
                        messages.get(1)), 100, null, null, null, null, null, null, false, null, null, null, null,
                null, true), 100).get("system"), "one system text stays a string");

        // A function result that answers no call cannot be expressed: the client's 400, naming the message.
        ChatRequest orphan = new ChatRequest(new ModelId("m"), List.of(messages.get(1), messages.get(3)), 100, null,
                null, null, null, null, null, false, null, null, null, null, null, true);
        AnthropicRequests.Untranslatable refused = assertThrows(AnthropicRequests.Untranslatable.class,
                () -> new AnthropicRequests(json).messagesRequest(route, orphan, 100));
        assertEquals("messages[1]", refused.param());
    }

    @Test
    void parallelToolCallsFalseIsAnthropicsDisableParallelToolUse() throws Exception {
        JsonMapper json = JsonMapper.createDefault();
        List<ChatMessage> messages = List.of(new ChatMessage("user", "Weather?",
                "{\"role\":\"user\",\"content\":\"Weather?\"}"));
        String tools = "[{\"type\":\"function\",\"function\":{\"name\":\"weather\"}}]";
        ProviderRoute route = new ProviderRoute(new ProviderId("a"), "claude-x", TokenPrice.FREE, TokenPrice.FREE,
                ModelCapabilities.ALL);
        AnthropicRequests requests = new AnthropicRequests(json);
        for (String choice : new String[] {null, "\"required\""}) {
            ChatRequest request = new ChatRequest(new ModelId("m"), messages, 100, null, null, null, null, null,
                    null, false, null, null, tools, choice, null, false, "max_tokens", false);
            String encoded = json.writeValueAsString(requests.messagesRequest(route, request, 100));
            assertTrue(encoded.contains("\"tool_choice\":{\"type\":\"" + (choice == null ? "auto" : "any")
                    + "\",\"disable_parallel_tool_use\":true}"), encoded);
        }
        ChatRequest allowed = new ChatRequest(new ModelId("m"), messages, 100, null, null, null, null, null, null,
                false, null, null, tools, null, null, false, "max_tokens", true);
        assertFalse(json.writeValueAsString(requests.messagesRequest(route, allowed, 100)).contains("tool_choice"),
                "true is Anthropic's default: nothing to send");
    }

    @Test
    void imagePartsOfAUserTurnBecomeImageBlocksInTheirPlace() throws Exception {
        JsonMapper json = JsonMapper.createDefault();
        String parts = "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Compare\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgo=\"}},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/b.jpg\",\"detail\":\"low\"}},"
                + "{\"type\":\"text\",\"text\":\"please\"}]}";
        ChatRequest request = new ChatRequest(new ModelId("m"), List.of(new ChatMessage("user", "Compare please",
                parts, "", 2)), 100, null, null, null, null, null, null, false, null, null, null, null, null, true);
        ProviderRoute route = new ProviderRoute(new ProviderId("a"), "claude-x", TokenPrice.FREE, TokenPrice.FREE,
                ModelCapabilities.ALL);
        String encoded = json.writeValueAsString(new AnthropicRequests(json).messagesRequest(route, request, 100));
        assertTrue(encoded.contains("\"content\":[{\"type\":\"text\",\"text\":\"Compare\"},"
                + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\","
                + "\"data\":\"iVBORw0KGgo=\"}},{\"type\":\"image\",\"source\":{\"type\":\"url\","
                + "\"url\":\"https://example.com/b.jpg\"}},{\"type\":\"text\",\"text\":\"please\"}]"), encoded);
    }

    @Test
    void aRequestTheMessagesApiCannotExpressIsTheClientsFaultAndNothingIsSent() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        handler.set(exchange -> {
            calls.incrementAndGet();
            sse(exchange, textStream(List.of("no")));
        });
        ChatMessage user = new ChatMessage("user", "hi", "{\"role\":\"user\",\"content\":\"hi\"}");
        record Case(List<ChatMessage> messages, String param) {
        }
        for (Case c : List.of(
                // Tool input must be an object in Anthropic's API: arguments that are no JSON object cannot be sent.
                new Case(List.of(user, new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,"
                        + "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                        + "\"arguments\":\"not json\"}}]}")), "messages[1].tool_calls[0].function.arguments"),
                new Case(List.of(user, new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,"
                        + "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                        + "\"arguments\":\"[1]\"}}]}")), "messages[1].tool_calls[0].function.arguments"),
                // Nothing but a system prompt (or empty turns) leaves Anthropic no message at all.
                new Case(List.of(new ChatMessage("system", "Be brief.", "{\"role\":\"system\",\"content\":"
                        + "\"Be brief.\"}"), new ChatMessage("user", "", "{\"role\":\"user\",\"content\":\"\"}")),
                        "messages"))) {
            ChatRequest request = new ChatRequest(new ModelId("m"), c.messages(), 16, null, null, null, null,
                    List.of(), null, false, null, null, null, null, null, true);
            RecordingListener recorder = new RecordingListener();
            provider.call(ROUTE, request, 16, recorder);
            recorder.await();
            assertEquals(c.param(), recorder.failure.invalidParam(), recorder.failure.message());
            assertEquals(400, recorder.failure.status());
            assertFalse(recorder.failure.retryable());
            assertFalse(recorder.failure.message().contains("Jackson") || recorder.failure.message().contains("Source"),
                    recorder.failure.message());
        }
        assertEquals(0, calls.get(), "nothing went upstream");
    }

    @Test
    void extendedThinkingBecomesReasoningText() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\","
                        + "\"thinking\":\"\"}}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
                        + "\"thinking\":\"Let me see.\"}}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\","
                        + "\"signature\":\"abc\"}}",
                "{\"type\":\"content_block_stop\",\"index\":0}",
                "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"4\"}}",
                "{\"type\":\"content_block_stop\",\"index\":1}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}",
                "{\"type\":\"message_stop\"}")));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("REASONING:Let me see.", "content:4"), recorder.outputs);
        assertEquals("stop", recorder.finishReason);
    }

    /** From an audit against Anthropic's documented refusals: what chat completions allow and Anthropic does not. */
    @Test
    void whatTheMessagesApiRefusesIsSmoothedOut() throws Exception {
        JsonMapper json = JsonMapper.createDefault();
        ProviderRoute route = new ProviderRoute(new ProviderId("a"), "claude-x", TokenPrice.FREE, TokenPrice.FREE,
                ModelCapabilities.ALL);
        List<ChatMessage> messages = List.of(
                new ChatMessage("user", "Translate:Bonjour", "{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                        + "\"text\":\"Translate:\"},{\"type\":\"text\",\"text\":\"\\n \"},{\"type\":\"text\","
                        + "\"text\":\"Bonjour\"},{\"type\":\"image_url\",\"image_url\":{\"url\":"
                        + "\"data:image/jpg;base64,/9j/4AAQ\"}}]}", "", 1),
                new ChatMessage("assistant", " ", "{\"role\":\"assistant\",\"content\":\" \",\"tool_calls\":[{\"id\":"
                        + "\"functions.weather:0\",\"type\":\"function\",\"function\":{\"name\":\"weather\","
                        + "\"arguments\":\"{}\"}}]}"),
                new ChatMessage("tool", "4 degrees", "{\"role\":\"tool\",\"tool_call_id\":\"functions.weather:0\","
                        + "\"content\":[{\"type\":\"text\",\"text\":\"4 \"},{\"type\":\"text\",\"text\":\"degrees\"}]}"),
                new ChatMessage("assistant", "Say: ", "{\"role\":\"assistant\",\"content\":\"Say: \"}"));
        ChatRequest request = new ChatRequest(new ModelId("m"), messages, 100, new BigDecimal("0.7"),
                new BigDecimal("0.9"), null, null, List.of("\n", "END", " "), null, false, null, null, null, null,
                "jane.doe@example.com", true);
        String encoded = json.writeValueAsString(new AnthropicRequests(json).messagesRequest(route, request, 100));
        assertTrue(encoded.contains("\"temperature\":0.7") && !encoded.contains("top_p"), "one of the two: " + encoded);
        assertTrue(encoded.contains("\"stop_sequences\":[\"END\"]"), "no whitespace-only stop: " + encoded);
        assertTrue(encoded.contains("\"content\":[{\"type\":\"text\",\"text\":\"Translate:\"},{\"type\":\"text\","
                + "\"text\":\"Bonjour\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":"
                + "\"image/jpeg\",\"data\":\"/9j/4AAQ\"}}]"), "parts stay blocks, no blank one, jpg is jpeg: " + encoded);
        String mapped = AnthropicRequests.toolId("functions.weather:0");
        assertTrue(mapped.matches("functions_weather_0_[0-9a-f]{12}"), mapped);
        assertTrue(encoded.contains("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":"
                + "\"" + mapped + "\""), "no blank text block, an id Anthropic takes: " + encoded);
        assertTrue(encoded.contains("\"tool_use_id\":\"" + mapped + "\",\"content\":[{\"type\":\"text\","
                + "\"text\":\"4 \"},{\"type\":\"text\",\"text\":\"degrees\"}]"), encoded);
        String userHash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("jane.doe@example.com".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(encoded.endsWith("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Say:\"}]}],"
                + "\"temperature\":0.7,\"stop_sequences\":[\"END\"],\"metadata\":{\"user_id\":\"" + userHash + "\"}}"),
                "a prefill without trailing whitespace; an opaque user id: " + encoded);
        assertFalse(encoded.contains("jane"), encoded);
        ChatRequest onlyTopP = new ChatRequest(new ModelId("m"), messages.subList(0, 1), 100, null,
                new BigDecimal("0.9"), null, null, List.of("\n"), null, false, null, null, null, null, null, true);
        String alone = json.writeValueAsString(new AnthropicRequests(json).messagesRequest(route, onlyTopP, 100));
        assertTrue(alone.contains("\"top_p\":0.9") && !alone.contains("stop_sequences"), alone);
    }

    @Test
    void anImageAnthropicCannotTakeIsTheClientsFault() {
        JsonMapper json = JsonMapper.createDefault();
        for (String url : new String[] {"data:image/svg+xml;base64,PHN2Zz4=", "data:image/png,rawbytes"}) {
            ChatRequest request = new ChatRequest(new ModelId("m"), List.of(new ChatMessage("user", "see",
                    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"see\"},{\"type\":"
                            + "\"image_url\",\"image_url\":{\"url\":\"" + url + "\"}}]}", "", 1)), 100, null, null,
                    null, null, null, null, false, null, null, null, null, null, true);
            AnthropicRequests.Untranslatable refused = org.junit.jupiter.api.Assertions.assertThrows(
                    AnthropicRequests.Untranslatable.class, () -> new AnthropicRequests(json).messagesRequest(ROUTE,
                            request, 100));
            assertEquals("messages[0].content[1].image_url.url", refused.param(), refused.getMessage());
        }
    }

    @Test
    void cachedPromptTokensAreCountedAsPromptTokens() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,"
                        + "\"cache_creation_input_tokens\":1000,\"cache_read_input_tokens\":9000,\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
                "{\"type\":\"content_block_stop\",\"index\":0}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"model_context_window_exceeded\"},"
                        + "\"usage\":{\"output_tokens\":2}}",
                "{\"type\":\"message_stop\"}")));
        RecordingListener recorder = callAndWait();
        assertEquals(10_003, recorder.usage.promptTokens());
        assertEquals(2, recorder.usage.completionTokens());
        assertEquals("length", recorder.finishReason, "the context window cut the answer short");
    }

    @Test
    void anEmptyCreditBalanceIsTheGatewaysStandingNotTheClientsRequest() throws Exception {
        handler.set(exchange -> answer(exchange, 400, "application/json", "{\"type\":\"error\",\"error\":{\"type\":"
                + "\"invalid_request_error\",\"message\":\"Your credit balance is too low to access the Anthropic "
                + "API. Please go to Plans & Billing to upgrade or purchase credits.\"}}"));
        RecordingListener recorder = callAndWait();
        assertTrue(recorder.failure.providerFault(), "the next route is tried: " + recorder.failure.message());
        assertTrue(recorder.failure.message().contains("answered HTTP 400"), recorder.failure.message());
        assertFalse(recorder.failure.message().contains("Plans & Billing"), "not the client's business");
    }

    /** A server that sends message_delta with its stop reason, then holds the connection open: the answer is whole. */
    @Test
    void theStopReasonTellsTheAnswerIsWholeBeforeMessageStop() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> events = new ArrayList<>(textStream(List.of("Hi")));
        events.remove(events.size() - 1); // no message_stop
        holdOpenAfter(events, release);
        RecordingListener recorder = new RecordingListener();
        try {
            provider.call(ROUTE, REQUEST, 16, recorder);
            assertTrue(recorder.finishedAwaitingTold.await(5, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals("stop", recorder.finishedAwaiting);
            assertEquals(new dev.tollgate.domain.billing.TokenUsage(5, 2), recorder.usageSoFar);
        } finally {
            release.countDown();
        }
    }

    @Test
    void stopReasonsBecomeFinishReasons() {
        assertEquals("stop", AnthropicModelProvider.finishReason("end_turn"));
        assertEquals("length", AnthropicModelProvider.finishReason("max_tokens"));
        assertEquals("tool_calls", AnthropicModelProvider.finishReason("tool_use"));
        assertEquals("stop", AnthropicModelProvider.finishReason("stop_sequence"));
        assertEquals("stop", AnthropicModelProvider.finishReason(null));
    }
}
