package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.shared.DomainRuleViolation;
import io.micronaut.json.JsonMapper;

/**
 * G17 fuzz target: request JSON validation of {@code POST /v1/chat/completions} — the body reader with its limits
 * ({@link JsonObjectBody}) and the chat request's checks ({@link ChatRequests}). Any bytes are a request, or one of
 * the refusals the API documents: {@link InvalidRequestException} and {@link DomainRuleViolation} (400 with the
 * error envelope; 415 for a body not declared JSON, which this target does not reach) or, for a model id longer than
 * any, {@link ModelNotFoundException} (404). Never another exception (a 500). Inputs: {@code ChatRequestFuzzTestInputs/}.
 */
class ChatRequestFuzzTest {

    private static final JsonMapper JSON = JsonMapper.createDefault();

    @DictionaryEntries({"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]", "\"model\":",
            "\"messages\":[", "{\"role\":\"", "system", "developer", "user", "assistant", "tool", "function",
            "\"content\":", "\"content\":[{\"type\":\"text\",\"text\":", "\"type\":\"image_url\",\"image_url\":{\"url\":",
            "\"refusal\":", "\"name\":", "\"tool_call_id\":", "\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
            + "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]", "\"tools\":[{\"type\":\"function\",\"function\":"
            + "{\"name\":\"f\",\"parameters\":{}}}]", "\"tool_choice\":", "\"required\"", "\"auto\"", "\"none\"",
            "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}", "\"functions\":", "\"function_call\":",
            "\"stream\":true", "\"stream_options\":{\"include_usage\":true}", "\"max_tokens\":",
            "\"max_completion_tokens\":", "\"n\":", "\"logprobs\":true", "\"top_logprobs\":", "\"seed\":",
            "\"temperature\":", "\"top_p\":", "\"frequency_penalty\":", "\"presence_penalty\":", "\"stop\":",
            "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"s\",\"schema\":{}}}",
            "\"parallel_tool_calls\":", "\"user\":", "null", "1e400", "-0", "0.5", "9223372036854775808",
            "\\ud800", "\\u0000"})
    @FuzzTest(maxDuration = "10m")
    void anyBodyIsARequestOrADocumentedRefusal(byte[] body) {
        ChatRequest request;
        try {
            JsonObjectBody parsed = JsonObjectBody.parse(body);
            request = ChatRequests.parse(parsed, JSON);
            ChatRequests.usageRequested(parsed);
        } catch (InvalidRequestException e) {
            assertTrue(e.status() == 400, "a body that was read is refused with a 400");
            assertNotNull(e.getMessage());
            return;
        } catch (DomainRuleViolation | ModelNotFoundException e) {
            assertNotNull(e.getMessage());
            return;
        }
        assertFalse(request.messages().isEmpty());
        assertTrue(request.maxTokens() == null || request.maxTokens() >= 1);
        request.textLength();
    }
}
