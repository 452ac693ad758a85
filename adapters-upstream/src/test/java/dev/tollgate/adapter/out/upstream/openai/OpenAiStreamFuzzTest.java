package dev.tollgate.adapter.out.upstream.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.CheckingListener;
import dev.tollgate.adapter.out.upstream.common.FuzzedStreams;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * G17 fuzz targets: what an OpenAI-compatible provider streams — one chunk's JSON ({@link OpenAiChunk#read}) and a
 * whole stream of lines through the provider's decoder, as the upstream HTTP client hands them over. Whatever a
 * provider sends, nothing but the documented {@link IOException} escapes the chunk reader, nothing at all escapes
 * the decoder (it tells its listener of a broken answer), exactly one terminal event reaches the listener, and tool
 * calls are passed on as the SDKs read them ({@link CheckingListener}). Inputs: {@code OpenAiStreamFuzzTestInputs/}.
 */
class OpenAiStreamFuzzTest {

    private static final JsonMapper JSON = JsonMapper.createDefault();
    private static final OpenAiCompatibleModelProvider PROVIDER = new OpenAiCompatibleModelProvider(
            new CatalogFile.ProviderSettings("fuzz", "openai", Map.of("base-url", "http://127.0.0.1:9")),
            FuzzedStreams.offline(), JSON);

    @DictionaryEntries({"data: ", "[DONE]", "{\"choices\":[{\"index\":0,\"delta\":{", "\"content\":\"",
            "\"reasoning\":", "\"reasoning_content\":", "\"refusal\":", "\"tool_calls\":[{", "\"index\":", "\"id\":",
            "\"type\":\"function\"", "\"function\":{\"name\":", "\"arguments\":", "\"finish_reason\":",
            "\"logprobs\":{\"content\":[", "\"usage\":{\"prompt_tokens\":", "\"completion_tokens\":", "\"total_tokens\":",
            "\"error\":{\"message\":", "\"code\":429", "\"x_groq\":", "null", "1e999999", "}", "]", ": keep-alive"})
    @FuzzTest(maxDuration = "10m")
    void chunksAreReadOrRefusedWithAnIOException(FuzzedDataProvider data) {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        Set<Integer> opened = new HashSet<>();
        for (String line : FuzzedStreams.lines(data)) {
            OpenAiChunk chunk;
            try {
                chunk = OpenAiChunk.read(line, indexes);
            } catch (IOException notAChunk) {
                continue;
            }
            if (chunk.toolCallsJson() != null && !chunk.toolCallsJson().equals("[]")) {
                CheckingListener.checkToolCalls(chunk.toolCallsJson(), opened);
            }
            if (chunk.logprobsJson() != null) {
                CheckingListener.read(chunk.logprobsJson());
            }
            if (chunk.hasUsage()) {
                assertEquals(true, chunk.promptTokens() >= 0 && chunk.completionTokens() >= 0);
            }
        }
    }

    @DictionaryEntries({"data: ", "data: [DONE]", "data: {\"choices\":[{\"index\":0,\"delta\":{", "\"content\":\"",
            "\"tool_calls\":[{", "\"index\":", "\"id\":", "\"type\":\"function\"", "\"function\":{\"name\":",
            "\"arguments\":", "\"finish_reason\":\"stop\"", "\"usage\":{\"prompt_tokens\":", "\"completion_tokens\":",
            "\"error\":{\"message\":", "event: ", ": keep-alive", "null", "}", "]"})
    @FuzzTest(maxDuration = "10m")
    void anyStreamEndsInOneTerminalEventWithoutAnException(FuzzedDataProvider data) {
        CheckingListener listener = new CheckingListener();
        FuzzedStreams.feed(PROVIDER.decoder(listener), data);
        assertEquals(1, listener.terminals(), "one terminal event");
    }
}
