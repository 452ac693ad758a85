package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** sdk-contract.md: {@code logprobs} is null unless asked for; when the provider sent them, OpenAI's shape. */
class ChunkWriterTest {

    private final JsonMapper json = JsonMapper.createDefault();
    private final ChunkWriter chunks = new ChunkWriter(json, "chatcmpl-1", 1, "m/one");
    private final List<Object> entries = chunks.readList(
            "[{\"token\":\"Hi\",\"logprob\":-0.25,\"bytes\":[72,105],\"top_logprobs\":[]}]");
    private final CompletionResult result = new CompletionResult("stop", new TokenUsage(3, 1), Usd.ZERO, "p");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> choice(Map<String, Object> body) {
        return (Map<String, Object>) ((List<Object>) body.get("choices")).get(0);
    }

    private static ChunkWriter.Answer text(String content) {
        return new ChunkWriter.Answer(content, "", "", List.of());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> message(Map<String, Object> body) {
        return (Map<String, Object>) choice(body).get("message");
    }

    private Map<String, Object> parse(String text) throws IOException {
        return json.readValue(text, Argument.mapOf(String.class, Object.class));
    }

    @Test
    void aJsonAnswerCarriesTheLogprobsItWasSentAndNullOtherwise() {
        Map<String, Object> with = chunks.completion(text("Hi"), entries, result);
        assertEquals(Set.of("content", "refusal"), ((Map<?, ?>) choice(with).get("logprobs")).keySet());
        assertEquals(entries, ((Map<?, ?>) choice(with).get("logprobs")).get("content"));

        Map<String, Object> without = chunks.completion(text("Hi"), null, result);
        assertTrue(choice(without).containsKey("logprobs"));
        assertNull(choice(without).get("logprobs"));
    }

    @Test
    void aStreamChunkCarriesTheLogprobsOfItsTextAndNoKeyOtherwise() throws IOException {
        Map<String, Object> with = choice(parse(chunks.textChunk("Hi", entries)));
        assertEquals("Hi", ((Map<?, ?>) with.get("delta")).get("content"));
        assertEquals(entries, ((Map<?, ?>) with.get("logprobs")).get("content"));

        assertFalse(choice(parse(chunks.textChunk("Hi", null))).containsKey("logprobs"));
        Map<String, Object> alone = choice(parse(chunks.logprobsChunk(entries)));
        assertEquals(Map.of(), alone.get("delta"));
        assertEquals(entries, ((Map<?, ?>) alone.get("logprobs")).get("content"));
    }

    @Test
    void aRefusalTakesThePlaceOfTheContentAsOpenAiAnswersIt() {
        Map<String, Object> message = message(chunks.completion(
                new ChunkWriter.Answer("", "I can't help with that.", "", List.of()), null, result));
        assertTrue(message.containsKey("content"));
        assertNull(message.get("content"));
        assertEquals("I can't help with that.", message.get("refusal"));
        assertFalse(message.containsKey("reasoning"));

        Map<String, Object> plain = message(chunks.completion(text("Hi"), null, result));
        assertEquals("Hi", plain.get("content"));
        assertTrue(plain.containsKey("refusal"));
        assertNull(plain.get("refusal"));
        assertFalse(plain.containsKey("reasoning"), "no reasoning key when the model sent none");
    }

    @Test
    void reasoningComesBesideTheContentAsOpenRouterAnswersIt() {
        Map<String, Object> message = message(chunks.completion(
                new ChunkWriter.Answer("42", "", "Six times seven.", List.of()), null, result));
        assertEquals("42", message.get("content"));
        assertEquals("Six times seven.", message.get("reasoning"));
        assertNull(message.get("refusal"));
    }

    @Test
    void refusalAndReasoningStreamInTheirOwnDeltaFields() throws IOException {
        Map<String, Object> refusal = choice(parse(chunks.textChunk(AnswerChannel.REFUSAL, "No.")));
        assertEquals(Map.of("refusal", "No."), refusal.get("delta"));
        assertTrue(refusal.containsKey("finish_reason"));
        assertNull(refusal.get("finish_reason"));
        Map<String, Object> reasoning = choice(parse(chunks.textChunk(AnswerChannel.REASONING, "Hmm")));
        assertEquals(Map.of("reasoning", "Hmm"), reasoning.get("delta"));
    }

    /** §6.7's error object, in a chunk of the stream whose choice ends coded (G14); nothing else of an answer. */
    @Test
    void theTerminalErrorEventIsTheErrorInAChunkThatEndsWithFinishReasonError() throws IOException {
        Map<String, Object> event = parse(chunks.errorEvent(new dev.tollgate.application.port.in.completions
                .CompletionFailure(502, "api_error", "upstream_error", "The model provider failed", 0, true)));
        assertEquals(Map.of("message", "The model provider failed", "type", "api_error", "code", "upstream_error"),
                event.get("error"));
        assertEquals("chatcmpl-1", event.get("id"));
        assertEquals("chat.completion.chunk", event.get("object"));
        assertEquals("m/one", event.get("model"));
        assertEquals(Map.of("index", 0, "delta", Map.of(), "finish_reason", "error"), choice(event));
        assertFalse(event.containsKey("usage"), "usage only on the final usage chunk");
    }
}
