package dev.tollgate.adapter.out.upstream.anthropic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.CheckingListener;
import dev.tollgate.adapter.out.upstream.common.FuzzedStreams;
import io.micronaut.json.JsonMapper;
import java.util.Map;

/**
 * G17 fuzz target: what Anthropic's Messages API streams, line by line through the provider's decoder. Nothing
 * escapes the decoder, exactly one terminal event reaches the listener, and tool calls are passed on as the SDKs
 * read them ({@link CheckingListener}). Inputs: {@code AnthropicStreamFuzzTestInputs/}.
 */
class AnthropicStreamFuzzTest {

    private static final AnthropicModelProvider PROVIDER = new AnthropicModelProvider(
            new CatalogFile.ProviderSettings("fuzz", "anthropic", Map.of("base-url", "http://127.0.0.1:9")),
            FuzzedStreams.offline(), JsonMapper.createDefault());

    @DictionaryEntries({"data: ", "event: ", "{\"type\":\"", "message_start", "content_block_start",
            "content_block_delta", "content_block_stop", "message_delta", "message_stop", "error", "ping",
            "\"message\":{\"usage\":{\"input_tokens\":", "\"output_tokens\":", "\"cache_read_input_tokens\":",
            "\"cache_creation_input_tokens\":", "\"index\":", "\"content_block\":{\"type\":\"tool_use\",\"id\":",
            "\"name\":", "\"input\":{", "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":",
            "\"delta\":{\"type\":\"text_delta\",\"text\":", "\"thinking_delta\"", "\"thinking\":", "\"stop_reason\":",
            "\"overloaded_error\"", "null", "}", "]"})
    @FuzzTest(maxDuration = "10m")
    void anyStreamEndsInOneTerminalEventWithoutAnException(FuzzedDataProvider data) {
        CheckingListener listener = new CheckingListener();
        FuzzedStreams.feed(PROVIDER.decoder(listener), data);
        assertEquals(1, listener.terminals(), "one terminal event");
    }
}
