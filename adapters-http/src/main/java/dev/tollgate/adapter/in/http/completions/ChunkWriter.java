package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.domain.completion.AnswerChannel;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP adapter: the chat-completion JSON shapes of sdk-contract.md. Every chunk of one stream has the same
 * {@code id} and {@code created}; every choice carries {@code index}, {@code delta} and a {@code finish_reason}
 * key; {@code usage} appears only on the final chunk, whose {@code choices} is empty.
 */
final class ChunkWriter {

    private final JsonMapper json;
    private final String id;
    private final long created;
    private final String model;

    ChunkWriter(JsonMapper json, String id, long created, String model) {
        this.json = json;
        this.id = id;
        this.created = created;
        this.model = model;
    }

    /**
     * A whole answer: its content, refusal and reasoning text (each empty when there was none) and tool calls.
     */
    record Answer(String content, String refusal, String reasoning, List<Map<String, Object>> toolCalls) {
    }

    /**
     * @param logprobs the {@code logprobs.content} entries the provider sent, or null when none were asked for or
     *                 sent
     */
    Map<String, Object> completion(Answer answer, List<Object> logprobs, CompletionResult result) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("role", "assistant");
        // OpenAI: the content is null when the answer is only tool calls or a refusal.
        boolean noContent = answer.content().isEmpty()
                && (!answer.toolCalls().isEmpty() || !answer.refusal().isEmpty());
        message.put("content", noContent ? null : answer.content());
        message.put("refusal", answer.refusal().isEmpty() ? null : answer.refusal());
        if (!answer.reasoning().isEmpty()) {
            message.put("reasoning", answer.reasoning());
        }
        if (!answer.toolCalls().isEmpty()) {
            message.put("tool_calls", answer.toolCalls());
        }
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("index", 0);
        choice.put("message", message);
        choice.put("logprobs", logprobs == null ? null : logprobs(logprobs));
        choice.put("finish_reason", result.finishReason());
        Map<String, Object> body = envelope("chat.completion");
        body.put("choices", List.of(choice));
        body.put("usage", usage(result));
        body.put("system_fingerprint", null);
        return body;
    }

    String roleChunk() {
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put("role", "assistant");
        delta.put("content", "");
        return chunk(delta, null);
    }

    /** @param logprobs the log probabilities of this text ({@code logprobs.content} entries), or null */
    String textChunk(String text, List<Object> logprobs) {
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put("content", text);
        return chunk(delta, null, logprobs);
    }

    /** Refusal or reasoning text: {@code delta.refusal} (OpenAI) or {@code delta.reasoning} (OpenRouter). */
    String textChunk(AnswerChannel channel, String text) {
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put(channel == AnswerChannel.REFUSAL ? "refusal" : "reasoning", text);
        return chunk(delta, null);
    }

    /** Log probabilities that came with no text after them (before the finish): a chunk of their own. */
    String logprobsChunk(List<Object> logprobs) {
        return chunk(new LinkedHashMap<>(), null, logprobs);
    }

    private Map<String, Object> logprobs(List<Object> content) {
        Map<String, Object> logprobs = new LinkedHashMap<>();
        logprobs.put("content", content);
        logprobs.put("refusal", null);
        return logprobs;
    }

    String toolCallChunk(String toolCallsJson) {
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put("tool_calls", read(toolCallsJson));
        return chunk(delta, null);
    }

    /** Parses a JSON value the gateway passes through (tool calls). */
    Object read(String rawJson) {
        try {
            return json.readValue(rawJson, io.micronaut.core.type.Argument.OBJECT_ARGUMENT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a JSON array the gateway passes through (log probabilities). */
    List<Object> readList(String rawJson) {
        return read(rawJson) instanceof List<?> list ? new ArrayList<>(list) : new ArrayList<>();
    }

    String finishChunk(String finishReason) {
        return chunk(new LinkedHashMap<>(), finishReason);
    }

    String usageChunk(CompletionResult result) {
        Map<String, Object> body = envelope("chat.completion.chunk");
        body.put("choices", new ArrayList<>());
        body.put("usage", usage(result));
        return write(body);
    }

    /**
     * The terminal event of a stream that broke after it began: §6.7's {@code {"error": {message, type, code}}},
     * which the openai SDK raises as an {@code APIError}, in a chunk of this stream whose choice ends with
     * {@code finish_reason: "error"} (reliability goal G14's wording; OpenRouter sends its mid-stream errors so), so a
     * client reading either finds the end of the answer coded.
     */
    String errorEvent(CompletionFailure failure) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", failure.message());
        error.put("type", failure.type());
        error.put("code", failure.code());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.putAll(envelope("chat.completion.chunk"));
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("index", 0);
        choice.put("delta", new LinkedHashMap<>());
        choice.put("finish_reason", "error");
        body.put("choices", List.of(choice));
        return write(body);
    }

    private String chunk(Map<String, Object> delta, String finishReason) {
        return chunk(delta, finishReason, null);
    }

    private String chunk(Map<String, Object> delta, String finishReason, List<Object> logprobs) {
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("index", 0);
        choice.put("delta", delta);
        if (logprobs != null) {
            choice.put("logprobs", logprobs(logprobs));
        }
        choice.put("finish_reason", finishReason);
        Map<String, Object> body = envelope("chat.completion.chunk");
        body.put("choices", List.of(choice));
        return write(body);
    }

    private Map<String, Object> envelope(String object) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("object", object);
        body.put("created", created);
        body.put("model", model);
        return body;
    }

    private static Map<String, Object> usage(CompletionResult result) {
        Map<String, Object> usage = new LinkedHashMap<>();
        usage.put("prompt_tokens", result.usage().promptTokens());
        usage.put("completion_tokens", result.usage().completionTokens());
        usage.put("total_tokens", result.usage().totalTokens());
        return usage;
    }

    private String write(Map<String, Object> value) {
        try {
            return json.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
