package dev.tollgate.adapter.out.upstream.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.AbstractModelProviderContractTest;
import dev.tollgate.adapter.out.upstream.common.RecordingListener;
import dev.tollgate.adapter.out.upstream.common.UpstreamHttp;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The provider contract for the OpenAI-compatible provider, against a chat-completions SSE stub. */
class OpenAiCompatibleModelProviderTest extends AbstractModelProviderContractTest {

    @Override
    protected String path() {
        return "/v1/chat/completions";
    }

    @Override
    protected ModelProvider provider(String baseUrl, UpstreamHttp http, JsonMapper json) {
        return new OpenAiCompatibleModelProvider(new CatalogFile.ProviderSettings("stub", "openai",
                Map.of("base-url", baseUrl + "/v1/")), http, json);
    }

    @Override
    protected List<String> streamOpening() {
        return List.of("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"finish_reason\":null}]}");
    }

    @Override
    protected String textPiece(String text) {
        return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text + "\"},\"finish_reason\":null}]}";
    }

    @Override
    protected List<String> textStream(List<String> pieces) {
        List<String> events = new ArrayList<>(streamOpening());
        pieces.forEach(p -> events.add(textPiece(p)));
        events.add("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
        events.add("{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}");
        events.add("[DONE]");
        return events;
    }

    @Override
    protected List<String> toolCallStream(List<String> argumentPieces) {
        List<String> events = new ArrayList<>();
        events.add("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"arguments\":\"\"}}]},"
                + "\"finish_reason\":null}]}");
        for (String piece : argumentPieces) {
            events.add("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                    + "{\"arguments\":\"" + piece.replace("\"", "\\\"") + "\"}}]},\"finish_reason\":null}]}");
        }
        events.add("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}");
        events.add("[DONE]");
        return events;
    }

    @Override
    protected List<String> truncatedStream() {
        return List.of(textPiece("par"));
    }

    @Override
    protected void assertUpstreamRequest(String sent) {
        assertTrue(sent.contains("\"model\":\"upstream-model\""), sent);
        assertTrue(sent.contains("\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"), sent);
        assertTrue(sent.contains("\"stream\":true") && sent.contains("\"include_usage\":true"), sent);
        assertTrue(sent.contains("\"max_tokens\":16") && sent.contains("\"seed\":7"), sent);
    }

    @Test
    void aProviderForOpenAisReasoningModelsBoundsTheAnswerWithMaxCompletionTokens() throws Exception {
        handler.set(exchange -> sse(exchange, textStream(List.of("ok"))));
        UpstreamHttp http = UpstreamHttp.standalone();
        try {
            ModelProvider reasoning = new OpenAiCompatibleModelProvider(new CatalogFile.ProviderSettings("o", "openai",
                    Map.of("base-url", baseUrl() + "/v1", "max-tokens-field", "max_completion_tokens")), http,
                    JsonMapper.createDefault());
            RecordingListener recorder = new RecordingListener();
            reasoning.call(ROUTE, REQUEST, 16, recorder);
            recorder.await();
            assertEquals("stop", recorder.finishReason);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> new OpenAiCompatibleModelProvider(new CatalogFile.ProviderSettings("o", "openai",
                            Map.of("base-url", baseUrl() + "/v1", "max-tokens-field", "max_output")), http,
                            JsonMapper.createDefault()));
            assertTrue(refused.getMessage().contains("max-tokens-field"), refused.getMessage());
        } finally {
            http.close();
        }
        String sent = lastRequestBody();
        assertTrue(sent.contains("\"max_completion_tokens\":16"), sent);
        assertFalse(sent.contains("\"max_tokens\""), sent);
    }

    @Test
    void parallelToolCallsGoesUpstreamWithTheTools() throws Exception {
        handler.set(exchange -> sse(exchange, textStream(List.of("ok"))));
        ChatRequest withTools = new ChatRequest(REQUEST.model(), REQUEST.messages(), 16, null, null, null, null,
                List.of(), null, false, null, null, "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]",
                "\"auto\"", null, true, "max_tokens", false);
        RecordingListener recorder = new RecordingListener();
        provider.call(ROUTE, withTools, 16, recorder);
        recorder.await();
        String sent = lastRequestBody();
        assertTrue(sent.contains("\"parallel_tool_calls\":false"), sent);
        assertTrue(sent.contains("\"tool_choice\":\"auto\""), sent);

        RecordingListener plain = new RecordingListener();
        provider.call(ROUTE, REQUEST, 16, plain);
        plain.await();
        assertFalse(lastRequestBody().contains("parallel_tool_calls"), "not sent when the client did not send it");

        // OpenAI answers 400 to parallel_tool_calls without tools: a client's stray flag is not passed on.
        ChatRequest noTools = new ChatRequest(REQUEST.model(), REQUEST.messages(), 16, null, null, null, null,
                List.of(), null, false, null, null, null, null, null, true, "max_tokens", true);
        RecordingListener bare = new RecordingListener();
        provider.call(ROUTE, noTools, 16, bare);
        bare.await();
        assertFalse(lastRequestBody().contains("parallel_tool_calls"), lastRequestBody());
    }

    @Test
    void whatStrictServersRefuseIsNotSent() throws Exception {
        handler.set(exchange -> sse(exchange, textStream(List.of("ok"))));
        UpstreamHttp http = UpstreamHttp.standalone();
        try {
            // Mistral refuses stream_options (422 extra_forbidden): a provider entry can leave it out.
            ModelProvider mistral = new OpenAiCompatibleModelProvider(new CatalogFile.ProviderSettings("m", "openai",
                    Map.of("base-url", baseUrl() + "/v1", "stream-options", false)), http, JsonMapper.createDefault());
            RecordingListener recorder = new RecordingListener();
            mistral.call(ROUTE, REQUEST, 16, recorder);
            recorder.await();
            assertFalse(lastRequestBody().contains("stream_options"), lastRequestBody());
        } finally {
            http.close();
        }
        // The gateway's own answers carry "refusal": null, and clients send them back in the history: Groq answers
        // 400 to it, DeepSeek to reasoning_content. Other members stay as the client sent them.
        List<ChatMessage> history = List.of(new ChatMessage("user", "hi", "{\"role\":\"user\",\"content\":\"hi\"}"),
                new ChatMessage("assistant", "Hello", "{\"role\":\"assistant\",\"content\":\"Hello\","
                        + "\"refusal\":null,\"reasoning_content\":\"think\",\"reasoning\":\"r\",\"name\":\"bot\"}"),
                new ChatMessage("user", "again", "{\"role\":\"user\",\"content\":\"again\",\"refusal\":null}"));
        ChatRequest request = new ChatRequest(REQUEST.model(), history, 16, null, null, null, null, List.of(), null,
                false, null, null, null, null, null, true);
        RecordingListener recorder = new RecordingListener();
        provider.call(ROUTE, request, 16, recorder);
        recorder.await();
        String sent = lastRequestBody();
        assertTrue(sent.contains("{\"role\":\"assistant\",\"content\":\"Hello\",\"reasoning\":\"r\",\"name\":\"bot\"}"),
                sent);
        assertTrue(sent.contains("{\"role\":\"user\",\"content\":\"again\",\"refusal\":null}"),
                "only assistant turns are cleaned: " + sent);
        assertTrue(sent.contains("\"stream_options\":{\"include_usage\":true}"), "sent by default: " + sent);
    }

    @Test
    void theSeedGoesOnlyToARouteDeclaredToTakeIt() throws Exception {
        handler.set(exchange -> sse(exchange, textStream(List.of("ok"))));
        ProviderRoute noSeed = new ProviderRoute(ROUTE.provider(), ROUTE.upstreamModel(), TokenPrice.FREE,
                TokenPrice.FREE, new ModelCapabilities(true, true, true, false));
        RecordingListener recorder = new RecordingListener();
        provider.call(noSeed, REQUEST, 16, recorder);
        recorder.await();
        assertEquals("stop", recorder.finishReason);
        assertFalse(lastRequestBody().contains("\"seed\""), "best effort: not sent where not declared");
    }

    @Test
    void anErrorReportedInTheStreamIsAFailureAfterWhatCameBefore() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(textPiece("par"),
                "{\"error\":{\"message\":\"overloaded\",\"code\":503}}", "[DONE]")));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("par"), recorder.deltas);
        assertEquals(502, recorder.failure.status());
        assertFalse(recorder.failure.retryable(), "output already went to the client");
        assertEquals("stub reported: overloaded", recorder.failure.message());
    }

    @Test
    void logProbabilitiesArePassedOnBeforeTheTextTheyBelongTo() throws Exception {
        handler.set(exchange -> sse(exchange, List.of("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},"
                + "\"logprobs\":{\"content\":[{\"token\":\"Hi\",\"logprob\":-0.25,\"bytes\":[72,105],"
                + "\"top_logprobs\":[]}],\"refusal\":null},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":{\"content\":[]},\"finish_reason\":\"stop\"}]}",
                "[DONE]")));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("[{\"token\":\"Hi\",\"logprob\":-0.25,\"bytes\":[72,105],\"top_logprobs\":[]}]"),
                recorder.logprobs, "an empty list is nothing to pass on");
        assertEquals(List.of("Hi"), recorder.deltas);
    }

    @Test
    void reasoningAndRefusalTextArePassedOnInOrderWithTheContent() throws Exception {
        handler.set(exchange -> sse(exchange, List.of(
                "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning\":\"Think\"}}]}",
                // vLLM and DeepSeek name it reasoning_content; a server sending both names sends one text
                "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"ing.\"}}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\" Done\",\"reasoning_content\":\" Done\"}}]}",
                textPiece("Hi"),
                "{\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"No more.\"},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"refusal\":null},\"finish_reason\":\"stop\"}]}",
                "[DONE]")));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("REASONING:Think", "REASONING:ing.", "REASONING: Done", "content:Hi",
                "REFUSAL:No more."), recorder.outputs);
        assertEquals("stop", recorder.finishReason);
    }

    /**
     * A black-box audit (2026-11-29): a server's finish reason outside OpenAI's set went to clients as it was
     * (TGI's eos_token); a server that sent the usage chunk after the finishing one and then held the connection
     * open had its whole answer end as failed at the idle timeout; OpenAI's 429 insufficient_quota (the gateway's
     * credit with the provider) was taken for capacity and retried.
     */
    @Test
    void finishReasonsAreOpenAisAndTheUsageChunkAfterTheFinishEndsTheAnswer() throws Exception {
        assertEquals("stop", OpenAiCompatibleModelProvider.finishReason("eos_token"));
        assertEquals("length", OpenAiCompatibleModelProvider.finishReason("max_tokens"));
        assertEquals("tool_calls", OpenAiCompatibleModelProvider.finishReason("tool_use"));
        assertEquals("content_filter", OpenAiCompatibleModelProvider.finishReason("content_filter"));

        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        holdOpenAfter(List.of(textPiece("Hi"),
                "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"eos_token\"}]}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}"), release);
        try {
            RecordingListener recorder = callAndWait();
            assertEquals("stop", recorder.finishReason);
            assertEquals(new dev.tollgate.domain.billing.TokenUsage(5, 1), recorder.usage);
        } finally {
            release.countDown();
        }

        handler.set(exchange -> answer(exchange, 429, "application/json", "{\"error\":{\"message\":\"You exceeded "
                + "your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}"));
        RecordingListener broke = callAndWait();
        assertEquals(402, broke.failure.status(), broke.failure.message());
        assertFalse(broke.failure.rateLimited(), "not capacity: waiting does not bring credit");
        assertFalse(broke.failure.retryable());
        assertTrue(ModelProvider.UpstreamFailure.refusesGateway(broke.failure.status()));
    }

    /**
     * A black-box audit: a finish reason saying the answer failed (vLLM's abort, error) went to clients as stop, an
     * event named error whose data had no error object was ignored (the answer looked whole), and a byte order mark
     * at the start of the body lost the first event while its tokens were billed.
     */
    @Test
    void failedFinishReasonsAndErrorEventsAreFailuresAndALeadingByteOrderMarkIsDropped() throws Exception {
        for (String reason : List.of("abort", "error", "cancelled", "ABORT")) {
            handler.set(exchange -> sse(exchange, List.of(textPiece("par"),
                    "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" + reason + "\"}]}", "[DONE]")));
            RecordingListener recorder = callAndWait();
            assertEquals(List.of("par"), recorder.deltas);
            assertEquals(502, recorder.failure.status(), reason);
            assertTrue(recorder.failure.message().contains("finish_reason \"" + reason + "\""),
                    recorder.failure.message());
        }
        handler.set(exchange -> sse(exchange, List.of(
                "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"abort\"}]}")));
        assertTrue(callAndWait().failure.retryable(), "before any output another attempt may answer");

        for (String data : List.of("{\"message\":\"engine died\"}", "engine died")) {
            handler.set(exchange -> {
                java.io.OutputStream out = openStream(exchange);
                out.write(("data: " + textPiece("par") + "\n\nevent: error\ndata: " + data + "\n\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.close();
            });
            RecordingListener recorder = callAndWait();
            assertEquals(List.of("par"), recorder.deltas);
            assertEquals(502, recorder.failure.status(), data);
            assertEquals("stub reported: engine died", recorder.failure.message(), "the message, not its JSON");
        }
        handler.set(exchange -> {
            java.io.OutputStream out = openStream(exchange);
            out.write(("event: error\ndata: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.close();
        });
        assertEquals("stub reported: overloaded", callAndWait().failure.message(), "OpenAI's shape under the name");

        handler.set(exchange -> {
            java.io.OutputStream out = openStream(exchange);
            out.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
            for (String event : textStream(List.of("First", " second"))) {
                out.write(("data: " + event + "\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            out.close();
        });
        assertEquals(List.of("First", " second"), callAndWait().deltas);
    }

    /**
     * An audit: the finishing chunk carried the usage and the connection was then held open without [DONE]; the
     * answer waited 5 s for a usage report it already had.
     */
    @Test
    void aFinishingChunkWithTheUsageEndsTheAnswerAtOnce() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        holdOpenAfter(List.of(textPiece("Hi"), "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
                + "\"stop\"}],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5,\"total_tokens\":16}}"), release);
        try {
            long start = System.nanoTime();
            RecordingListener recorder = callAndWait();
            assertEquals("stop", recorder.finishReason);
            assertEquals(new dev.tollgate.domain.billing.TokenUsage(11, 5), recorder.usage);
            long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 3_000, "finished after " + millis + " ms, not after a wait for more");
        } finally {
            release.countDown();
        }
    }

    /** A black-box audit (2026-11-29): the request refused in the stream, before output, is the 400 it means. */
    @Test
    void aRefusalOfTheRequestInTheStreamBeforeOutputIsA400NotAServerError() throws Exception {
        handler.set(exchange -> sse(exchange, List.of("{\"error\":{\"message\":\"This model's maximum context length "
                + "is 4096 tokens\",\"type\":\"BadRequestError\",\"code\":400}}")));
        RecordingListener refused = callAndWait();
        assertEquals(400, refused.failure.status());
        assertFalse(refused.failure.retryable(), "the same request would be refused again");
        assertTrue(refused.failure.message().contains("maximum context length is 4096"), refused.failure.message());

        handler.set(exchange -> sse(exchange, List.of(textPiece("par"), "{\"error\":{\"message\":\"too long\","
                + "\"code\":400}}")));
        RecordingListener after = callAndWait();
        assertEquals(502, after.failure.status(), "after output it is a failure of the answer");
    }
}
