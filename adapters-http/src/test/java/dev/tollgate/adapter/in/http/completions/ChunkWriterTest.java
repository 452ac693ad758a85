package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.domain.billing.TokenUsage;
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

    private Map<String, Object> parse(String text) throws IOException {
        return json.readValue(text, Argument.mapOf(String.class, Object.class));
    }

    @Test
    void aJsonAnswerCarriesTheLogprobsItWasSentAndNullOtherwise() {
        Map<String, Object> with = chunks.completion("Hi", List.of(), entries, result);
        assertEquals(Set.of("content", "refusal"), ((Map<?, ?>) choice(with).get("logprobs")).keySet());
        assertEquals(entries, ((Map<?, ?>) choice(with).get("logprobs")).get("content"));

        Map<String, Object> without = chunks.completion("Hi", List.of(), null, result);
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
}
