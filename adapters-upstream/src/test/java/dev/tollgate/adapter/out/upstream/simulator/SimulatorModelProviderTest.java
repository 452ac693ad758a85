package dev.tollgate.adapter.out.upstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.JtokkitTokenCounter;
import dev.tollgate.adapter.out.upstream.common.RecordingListener;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatorModelProviderTest {

    private static final ProviderRoute ROUTE = new ProviderRoute(new ProviderId("sim"), "sim", TokenPrice.FREE,
            TokenPrice.FREE, new ModelCapabilities(false, false, false, false));
    private static final TokenCounter TOKENS = new TokenCounter() {
        @Override
        public long countPrompt(ChatRequest request) {
            return 7;
        }

        @Override
        public long countText(String text) {
            return text.isEmpty() ? 0 : text.split(" ").length;
        }
    };

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static final String BOOK = """
            {"type":"object","properties":{
              "title":{"type":"string"},
              "year":{"type":"integer","minimum":1900,"maximum":2030},
              "genres":{"type":"array","items":{"type":"string","enum":["novel","essay"]},"minItems":2},
              "isbn":{"type":["string","null"],"format":"uuid"}},
             "required":["title","year","genres","isbn"],"additionalProperties":false}""";
    private static final String BOOK_FORMAT = "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"book\","
            + "\"strict\":true,\"schema\":" + BOOK + "}}";
    private static final Map<String, Object> AT_ONCE = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
            "output-tokens", 6);

    private static ChatRequest request(List<String> stop) {
        return request(stop, null);
    }

    private static ChatRequest request(List<String> stop, String responseFormatJson) {
        return new ChatRequest(new ModelId("t/sim"), List.of(new ChatMessage("user", "say something",
                "{\"role\":\"user\",\"content\":\"say something\"}")), 100, null, null, null, null, stop, null,
                false, null, responseFormatJson, null, null, null, false);
    }

    private RecordingListener run(Map<String, Object> settings, ChatRequest request) throws InterruptedException {
        return run(settings, request, 100);
    }

    private RecordingListener run(Map<String, Object> settings, ChatRequest request, int maxTokens)
            throws InterruptedException {
        SimulatorModelProvider simulator = new SimulatorModelProvider(
                new CatalogFile.ProviderSettings("sim", "simulator", settings), TOKENS, scheduler);
        RecordingListener answer = new RecordingListener();
        simulator.call(ROUTE, request, maxTokens, answer);
        answer.await();
        return answer;
    }

    @Test
    void answersDeterministicallyWithItsUsage() throws InterruptedException {
        Map<String, Object> settings = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
                "output-tokens", 6);
        RecordingListener first = run(settings, request(List.of()));
        RecordingListener second = run(settings, request(List.of()));
        assertEquals(first.text(), second.text());
        assertEquals(6, first.text().split(" ").length);
        assertEquals("stop", first.finishReason);
        assertEquals(new TokenUsage(7, 6), first.usage);
    }

    /** A client that reads slowly holds the simulator back as TCP holds a network provider back; it goes on after. */
    @Test
    void aPausedAnswerWaitsForItsResumeAndThenEndsWhole() throws InterruptedException {
        SimulatorModelProvider simulator = new SimulatorModelProvider(new CatalogFile.ProviderSettings("sim",
                "simulator", Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0, "output-tokens", 50)),
                TOKENS, scheduler);
        RecordingListener answer = RecordingListener.pausingAfter(10);
        dev.tollgate.application.port.out.ModelProvider.UpstreamCall call =
                answer.of(simulator.call(ROUTE, request(List.of()), 100, answer));
        Thread.sleep(200);
        assertEquals(10, answer.deltas.size(), "held after the tenth token");
        assertNull(answer.finishReason);

        call.resume();
        answer.await();
        assertEquals(50, answer.deltas.size());
        assertEquals("stop", answer.finishReason);
    }

    @Test
    void theGatewayCountsInAnAnswerTheTokensTheSimulatorSaysItEmitted() throws InterruptedException {
        // A cancelled stream is billed the tokens counted in what was delivered: for the simulator that must be what
        // it reports, every word one o200k token, first or not.
        JtokkitTokenCounter o200k = new JtokkitTokenCounter();
        for (String word : SimulatorModelProvider.WORDS) {
            assertEquals(1, o200k.countText(word), word);
            assertEquals(1, o200k.countText(" " + word), word);
        }
        Map<String, Object> settings = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
                "output-tokens", 200);
        for (String prompt : List.of("a", "story fixed", "tell me more about the gateway")) {
            RecordingListener answer = run(settings, new ChatRequest(new ModelId("m"), List.of(new ChatMessage("user",
                    prompt, "{\"role\":\"user\",\"content\":\"" + prompt + "\"}")), 200, null, null, null, null,
                    null, null, false, null, null, null, null, null, true), 200);
            assertEquals(answer.usage.completionTokens(), o200k.countText(answer.text()), prompt);
        }
    }

    @Test
    void theAnswerEndsBeforeAStopSequence() throws InterruptedException {
        Map<String, Object> settings = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
                "output-tokens", 12);
        String full = run(settings, request(List.of())).text();
        String[] words = full.split(" ");
        String stop = words[3] + " " + words[4].substring(0, 2); // spans a word boundary, ends mid-word
        RecordingListener cut = run(settings, request(List.of("no-such-sequence", stop)));

        assertEquals(full.substring(0, full.indexOf(stop)), cut.text());
        assertFalse(cut.text().contains(stop), "the stop sequence is not part of the answer");
        assertEquals("stop", cut.finishReason);
        assertTrue(cut.usage.completionTokens() < 12, "fewer tokens than the whole answer");
    }

    @Test
    void aMidStreamFailureComesAfterSomeOutput() throws InterruptedException {
        RecordingListener answer = run(Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0, "output-tokens", 8,
                "fail-every", 1, "fail-mode", "mid-stream"), request(List.of()));
        assertNotNull(answer.failure);
        assertFalse(answer.failure.retryable(), "output was sent: no fallback may repeat it");
        assertEquals(4, answer.text().split(" ").length);
        assertNull(answer.finishReason);
    }

    @Test
    void jsonObjectIsAnsweredWithAnObjectStreamedInTokens() throws Exception {
        ChatRequest json = request(List.of(), "{\"type\":\"json_object\"}");
        RecordingListener answer = run(AT_ONCE, json);
        Map<?, ?> object = assertInstanceOf(Map.class, SchemaSubsetValidator.parse(answer.text()));
        assertEquals(run(AT_ONCE, request(List.of())).text(), object.get("answer"), "the simulator's text, as JSON");
        assertEquals(answer.text(), run(AT_ONCE, json).text(), "deterministic");
        assertTrue(answer.deltas.size() > 6, "streamed in pieces: " + answer.deltas);
        assertEquals("stop", answer.finishReason);
        assertEquals(new TokenUsage(7, answer.deltas.size()), answer.usage, "one token per piece emitted");
    }

    @Test
    void jsonSchemaIsAnsweredWithAnInstanceStreamedAtTheConfiguredPace() throws Exception {
        RecordingListener whole = run(AT_ONCE, request(List.of(), BOOK_FORMAT), 4096);
        assertEquals(List.of(), SchemaSubsetValidator.violations(BOOK, whole.text()), whole.text());
        assertEquals("stop", whole.finishReason);

        int pieces = whole.deltas.size();
        long started = System.nanoTime();
        RecordingListener paced = run(Map.of("time-to-first-token-ms", 0, "tokens-per-second", 1000),
                request(List.of(), BOOK_FORMAT), 4096);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(whole.deltas, paced.deltas, "the same pieces, one token at a time");
        assertTrue(tookMs >= pieces - 1, pieces + " tokens at 1000/s took " + tookMs + " ms");
        assertEquals(new TokenUsage(7, pieces), paced.usage);
    }

    @Test
    void maxTokensCutsTheJsonShortWithFinishReasonLength() throws Exception {
        String whole = run(AT_ONCE, request(List.of(), BOOK_FORMAT), 4096).text();
        int pieces = run(AT_ONCE, request(List.of(), BOOK_FORMAT), 4096).deltas.size();

        RecordingListener cut = run(AT_ONCE, request(List.of(), BOOK_FORMAT), pieces - 1);
        assertEquals("length", cut.finishReason);
        assertEquals(new TokenUsage(7, pieces - 1), cut.usage);
        assertTrue(whole.startsWith(cut.text()) && whole.length() > cut.text().length(), cut.text());
        assertThrows(IOException.class, () -> SchemaSubsetValidator.parse(cut.text()), "truncated JSON");

        RecordingListener exact = run(AT_ONCE, request(List.of(), BOOK_FORMAT), pieces);
        assertEquals("stop", exact.finishReason, "max_tokens that fits the whole answer does not cut it");
        assertEquals(whole, exact.text());
    }

    @Test
    void aStopSequenceEndsTheJsonToo() throws Exception {
        String whole = run(AT_ONCE, request(List.of(), BOOK_FORMAT), 4096).text();
        RecordingListener cut = run(AT_ONCE, request(List.of("\"year\""), BOOK_FORMAT), 4096);
        assertEquals(whole.substring(0, whole.indexOf("\"year\"")), cut.text());
        assertEquals("stop", cut.finishReason);
    }

    // Tool calls

    private static final String WEATHER = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":2},
              "unit":{"type":"string","enum":["celsius","fahrenheit"]},
              "days":{"type":"integer","minimum":1,"maximum":7}},
             "required":["city","unit","days"],"additionalProperties":false}""";
    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"description\":\"Weather in a city\",\"parameters\":" + WEATHER + "}},"
            + "{\"type\":\"function\",\"function\":{\"name\":\"get_book\",\"strict\":true,\"parameters\":"
            + BOOK + "}},"
            + "{\"type\":\"function\",\"function\":{\"name\":\"ping\"}}]";
    private static final ChatMessage ASK = new ChatMessage("user", "what is the weather like?",
            "{\"role\":\"user\",\"content\":\"what is the weather like?\"}");

    private static ChatRequest toolRequest(String toolChoiceJson, List<String> stop, ChatMessage... messages) {
        return new ChatRequest(new ModelId("t/sim"), List.of(messages), 100, null, null, null, null, stop, null,
                false, null, null, TOOLS, toolChoiceJson, null, true);
    }

    private static ChatRequest toolRequest(String toolChoiceJson, ChatMessage... messages) {
        return toolRequest(toolChoiceJson, List.of(), messages);
    }

    /** The one call the listener was handed, checked for its streaming shape: {id, name, arguments}. */
    private static List<String> call(RecordingListener answer) throws IOException {
        assertEquals(List.of(), answer.deltas, "a tool call instead of text");
        assertTrue(answer.toolCalls.size() >= 2, "the call's head, then its arguments: " + answer.toolCalls);
        Map<?, ?> head = (Map<?, ?>) assertInstanceOf(List.class, SchemaSubsetValidator.parse(answer.toolCalls.get(0)))
                .get(0);
        assertEquals(0, ((Number) head.get("index")).intValue());
        assertEquals("function", head.get("type"));
        String id = assertInstanceOf(String.class, head.get("id"));
        assertTrue(id.matches("call_[0-9a-f]{24}"), id);
        Map<?, ?> function = assertInstanceOf(Map.class, head.get("function"));
        assertEquals("", function.get("arguments"), "the head carries no arguments yet");
        StringBuilder arguments = new StringBuilder();
        for (String piece : answer.toolCalls.subList(1, answer.toolCalls.size())) {
            List<?> entries = assertInstanceOf(List.class, SchemaSubsetValidator.parse(piece));
            assertEquals(1, entries.size(), piece);
            Map<?, ?> entry = (Map<?, ?>) entries.get(0);
            assertEquals(0, ((Number) entry.get("index")).intValue(), piece);
            assertNull(entry.get("id"), "only the head names the call: " + piece);
            String fragment = assertInstanceOf(String.class, ((Map<?, ?>) entry.get("function")).get("arguments"));
            assertFalse(fragment.isEmpty(), piece);
            arguments.append(fragment);
        }
        return List.of(id, (String) function.get("name"), arguments.toString());
    }

    @Test
    void toolChoiceRequiredIsAnsweredWithOneCallWhoseArgumentsAreAnInstanceOfTheParameters() throws Exception {
        ChatRequest request = toolRequest("\"required\"", ASK);
        RecordingListener answer = run(AT_ONCE, request);
        List<String> call = call(answer);
        assertEquals("get_weather", call.get(1), "no tool mentioned: the first");
        assertEquals(List.of(), SchemaSubsetValidator.violations(WEATHER, call.get(2)), call.get(2));
        assertEquals("tool_calls", answer.finishReason);
        assertEquals(new TokenUsage(7, answer.toolCalls.size()), answer.usage, "one token per piece emitted");
        assertEquals(answer.toolCalls, run(AT_ONCE, request).toolCalls, "deterministic, id included");
        assertNotEquals(call.get(0), call(run(AT_ONCE, toolRequest("\"required\"", new ChatMessage("user",
                "and tomorrow?", "{}")))).get(0), "another prompt, another call id");

        int pieces = answer.toolCalls.size();
        long started = System.nanoTime();
        RecordingListener paced = run(Map.of("time-to-first-token-ms", 0, "tokens-per-second", 1000), request);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(answer.toolCalls, paced.toolCalls, "the same pieces, one token at a time");
        assertTrue(tookMs >= pieces - 1, pieces + " tokens at 1000/s took " + tookMs + " ms");
    }

    @Test
    void aNamedToolChoiceCallsThatFunction() throws Exception {
        RecordingListener answer = run(AT_ONCE, toolRequest(
                "{\"type\":\"function\",\"function\":{\"name\":\"get_book\"}}", ASK), 4096);
        List<String> call = call(answer);
        assertEquals("get_book", call.get(1));
        assertEquals(List.of(), SchemaSubsetValidator.violations(BOOK, call.get(2)), call.get(2));
        assertEquals("tool_calls", answer.finishReason);

        RecordingListener ping = run(AT_ONCE, toolRequest(
                "{\"type\":\"function\",\"function\":{\"name\":\"ping\"}}", ASK));
        assertEquals(List.of("ping", "{}"), call(ping).subList(1, 3), "no parameters: the empty object");
    }

    @Test
    void autoOrNoToolChoiceCallsTheToolTheUserMentionsOrElseTheFirst() throws Exception {
        for (String choice : new String[] {null, "\"auto\""}) {
            assertEquals("get_weather", call(run(AT_ONCE, toolRequest(choice, ASK))).get(1), choice);
            RecordingListener mentioned = run(AT_ONCE, toolRequest(choice, new ChatMessage("user",
                    "use get_book for this", "{}")), 4096);
            assertEquals("get_book", call(mentioned).get(1), choice);
            assertEquals("tool_calls", mentioned.finishReason);
        }
    }

    @Test
    void toolChoiceNoneOrAToolResultLastIsAnsweredWithText() throws Exception {
        RecordingListener none = run(AT_ONCE, toolRequest("\"none\"", ASK));
        assertEquals(List.of(), none.toolCalls);
        assertEquals(6, none.text().split(" ").length);
        assertEquals("stop", none.finishReason);

        ChatMessage called = new ChatMessage("assistant", "", "{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
                + "\"get_weather\",\"arguments\":\"{}\"}}]}", "get_weather {}", 0);
        for (String role : List.of("tool", "function")) {
            ChatMessage result = new ChatMessage(role, "sunny", "{\"role\":\"" + role + "\",\"content\":\"sunny\"}");
            RecordingListener after = run(AT_ONCE, toolRequest("\"required\"", ASK, called, result));
            assertEquals(List.of(), after.toolCalls, "after a tool's result the model answers: the loop ends");
            assertEquals(6, after.text().split(" ").length, role);
            assertEquals("stop", after.finishReason);
        }
    }

    @Test
    void maxTokensCutsTheArgumentsShortWithFinishReasonLength() throws Exception {
        RecordingListener whole = run(AT_ONCE, toolRequest("\"required\"", ASK));
        String arguments = call(whole).get(2);
        int pieces = whole.toolCalls.size();

        RecordingListener cut = run(AT_ONCE, toolRequest("\"required\"", ASK), pieces - 2);
        assertEquals("length", cut.finishReason);
        assertEquals(new TokenUsage(7, pieces - 2), cut.usage);
        String partial = call(cut).get(2);
        assertTrue(arguments.startsWith(partial) && arguments.length() > partial.length(), partial);
        assertThrows(IOException.class, () -> SchemaSubsetValidator.parse(partial), "truncated JSON");

        RecordingListener exact = run(AT_ONCE, toolRequest("\"required\"", ASK), pieces);
        assertEquals("tool_calls", exact.finishReason, "max_tokens that fits the whole call does not cut it");
        assertEquals(whole.toolCalls, exact.toolCalls);
    }

    @Test
    void stopSequencesDoNotEndAToolCall() throws Exception {
        RecordingListener whole = run(AT_ONCE, toolRequest("\"required\"", ASK));
        RecordingListener stopped = run(AT_ONCE, toolRequest("\"required\"", List.of("{", "city", "get_"), ASK));
        assertEquals(whole.toolCalls, stopped.toolCalls);
        assertEquals("tool_calls", stopped.finishReason);
    }

    @Test
    void logprobsComeBeforeEachTextTokenWithTheTokenLeadingItsAlternatives() throws Exception {
        ChatRequest asked = new ChatRequest(new ModelId("t/sim"), List.of(new ChatMessage("user", "say something",
                "{\"role\":\"user\",\"content\":\"say something\"}")), 100, null, null, null, null, List.of(),
                null, true, 3, null, null, null, null, false);
        RecordingListener answer = run(AT_ONCE, asked);
        assertEquals(6, answer.deltas.size());
        assertEquals(answer.deltas.size(), answer.logprobs.size(), "one entry per token");
        StringBuilder tokens = new StringBuilder();
        for (int n = 0; n < answer.logprobs.size(); n++) {
            List<?> content = assertInstanceOf(List.class, SchemaSubsetValidator.parse(answer.logprobs.get(n)));
            assertEquals(1, content.size());
            Map<?, ?> entry = assertInstanceOf(Map.class, content.get(0));
            assertEquals(answer.deltas.get(n), entry.get("token"));
            tokens.append(entry.get("token"));
            double logprob = ((Number) entry.get("logprob")).doubleValue();
            assertTrue(logprob < 0 && logprob >= -0.9, entry.toString());
            List<?> bytes = (List<?>) entry.get("bytes");
            assertEquals(answer.deltas.get(n).getBytes(java.nio.charset.StandardCharsets.UTF_8).length, bytes.size());
            List<?> top = (List<?>) entry.get("top_logprobs");
            assertEquals(3, top.size());
            assertEquals(entry.get("token"), ((Map<?, ?>) top.get(0)).get("token"), "the emitted token is the likeliest");
            double previous = 0;
            java.util.Set<Object> seen = new java.util.HashSet<>();
            for (Object alternative : top) {
                double p = ((Number) ((Map<?, ?>) alternative).get("logprob")).doubleValue();
                assertTrue(p < previous, top.toString());
                previous = p;
                assertTrue(seen.add(((Map<?, ?>) alternative).get("token")), "distinct: " + top);
            }
        }
        assertEquals(answer.text(), tokens.toString());
        assertEquals(answer.logprobs, run(AT_ONCE, asked).logprobs, "deterministic");
        assertEquals(List.of(), run(AT_ONCE, request(List.of())).logprobs, "none unless asked");
    }
}
