package dev.tollgate.adapter.out.upstream.openai;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.SseLineSplitter;
import dev.tollgate.adapter.out.upstream.common.StreamDecoderBase;
import dev.tollgate.adapter.out.upstream.common.StreamingExchange;
import dev.tollgate.adapter.out.upstream.common.UpstreamHttp;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Upstream adapter: any server speaking OpenAI's chat-completions API (OpenAI, vLLM, Ollama, llama.cpp server,
 * Groq, Together, OpenRouter, …). Always streams from upstream ({@code stream_options.include_usage}) and passes
 * deltas on as they arrive, so the first token reaches the client before the upstream finishes.
 *
 * <p>Streams through {@link UpstreamHttp}: cancelling closes the upstream connection at once, which the Micronaut
 * client (it drains the body to reuse the connection) does not do (docs/decisions.md). Settings: {@code base-url} (e.g. {@code https://api.openai.com/v1}), {@code api-key-env}
 * (name of the environment variable holding the key; optional), {@code connect-timeout-ms} (default 5000).
 */
public final class OpenAiCompatibleModelProvider implements ModelProvider {

    private final String name;
    private final URI endpoint;
    private final String apiKey;
    private final UpstreamHttp http;
    private final Duration connectTimeout;
    private final JsonMapper json;
    /**
     * The field that bounds the answer upstream: {@code max_tokens} (every OpenAI-compatible server), or
     * {@code max_completion_tokens}, which OpenAI's reasoning models require instead.
     */
    private final String maxTokensField;
    /** Whether {@code stream_options.include_usage} is sent (setting {@code stream-options}, default true). */
    private final boolean streamOptions;

    public OpenAiCompatibleModelProvider(CatalogFile.ProviderSettings settings, UpstreamHttp http, JsonMapper json) {
        this.name = settings.name();
        this.endpoint = StreamDecoderBase.endpoint(settings, null, "/chat/completions");
        this.apiKey = StreamDecoderBase.apiKey(settings);
        this.http = http;
        this.connectTimeout = StreamDecoderBase.connectTimeout(settings);
        this.json = json;
        this.maxTokensField = settings.string("max-tokens-field", "max_tokens");
        // Mistral's API refuses stream_options (422 extra_forbidden) and reports usage in its last chunk anyway.
        this.streamOptions = settings.bool("stream-options", true);
        if (!maxTokensField.equals("max_tokens") && !maxTokensField.equals("max_completion_tokens")) {
            throw new IllegalArgumentException("provider " + name + ": max-tokens-field must be max_tokens or "
                    + "max_completion_tokens, got '" + maxTokensField + "'");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "text/event-stream");
        if (apiKey != null && !apiKey.isBlank()) {
            headers.put("Authorization", "Bearer " + apiKey);
        }
        return http.post(endpoint, headers, body(route, request, maxTokens).getBytes(StandardCharsets.UTF_8),
                connectTimeout, listener, decoder(listener));
    }

    /** The decoder of one answer's stream: what {@link #call} reads the provider's lines with (tests drive it). */
    StreamingExchange.Decoder decoder(UpstreamListener listener) {
        return new StreamDecoder(listener);
    }

    private String body(ProviderRoute route, ChatRequest request, int maxTokens) {
        StringBuilder messages = new StringBuilder("[");
        List<ChatMessage> list = request.messages();
        for (int i = 0; i < list.size(); i++) {
            messages.append(i == 0 ? "" : ",").append(upstreamMessage(list.get(i)));
        }
        messages.append(']');
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", route.upstreamModel());
        body.put("messages", "__MESSAGES__");
        body.put(maxTokensField, maxTokens);
        body.put("stream", true);
        if (streamOptions) {
            body.put("stream_options", Map.of("include_usage", true));
        }
        putIfSet(body, "temperature", request.temperature());
        putIfSet(body, "top_p", request.topP());
        putIfSet(body, "frequency_penalty", request.frequencyPenalty());
        putIfSet(body, "presence_penalty", request.presencePenalty());
        if (!request.stop().isEmpty()) {
            body.put("stop", request.stop());
        }
        if (route.capabilities().seed()) {
            // Best effort (§2.3): a provider that is not declared to take a seed is not sent one it may refuse.
            putIfSet(body, "seed", request.seed());
        }
        if (request.logprobs()) {
            body.put("logprobs", true);
            putIfSet(body, "top_logprobs", request.topLogprobs());
        }
        putIfSet(body, "user", request.user());
        putRaw(body, "response_format", request.responseFormatJson());
        putRaw(body, "tools", request.toolsJson());
        putRaw(body, "tool_choice", request.toolChoiceJson());
        if (request.toolsJson() != null) {
            // OpenAI refuses parallel_tool_calls without tools ("only allowed when 'tools' are specified").
            putIfSet(body, "parallel_tool_calls", request.parallelToolCalls());
        }
        try {
            String encoded = json.writeValueAsString(body);
            // Messages go upstream exactly as the client sent them (content parts, tool calls, names).
            return encoded.replace("\"__MESSAGES__\"", messages.toString());
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode the upstream request", e);
        }
    }

    /** Members of an assistant turn that some servers refuse when they come back in the history. */
    private static final java.util.Set<String> ANSWER_ONLY = java.util.Set.of("refusal", "audio", "function_call",
            "annotations", "reasoning_content");

    /**
     * A message as the client sent it, except what an assistant turn carries back from an answer and strict servers
     * refuse: {@code "refusal": null} (the gateway's own answers carry it, as OpenAI's do; Groq answers 400 to it),
     * other null members, and DeepSeek's {@code reasoning_content} (DeepSeek answers 400 to it in the history).
     */
    private String upstreamMessage(ChatMessage message) {
        String raw = message.json();
        if (!"assistant".equals(message.role()) || ANSWER_ONLY.stream().noneMatch(raw::contains)) {
            return raw;
        }
        try {
            Map<String, Object> members = json.readValue(raw, Argument.mapOf(String.class, Object.class));
            Map<String, Object> kept = new LinkedHashMap<>();
            members.forEach((name, value) -> {
                boolean dropped = name.equals("reasoning_content")
                        || ANSWER_ONLY.contains(name) && (value == null || value instanceof List<?> l && l.isEmpty());
                if (!dropped) {
                    kept.put(name, value);
                }
            });
            return json.writeValueAsString(kept);
        } catch (IOException e) {
            return raw; // validated JSON: not expected
        }
    }

    private void putRaw(Map<String, Object> body, String field, String rawJson) {
        if (rawJson == null) {
            return;
        }
        try {
            body.put(field, json.readValue(rawJson, Argument.OBJECT_ARGUMENT));
        } catch (IOException e) {
            throw new IllegalStateException("cannot re-read " + field, e);
        }
    }

    private static void putIfSet(Map<String, Object> body, String field, Object value) {
        if (value != null) {
            body.put(field, value);
        }
    }

    /** Finish reasons of OpenAI's format, which clients and SDKs know. */
    private static final java.util.Set<String> FINISH_REASONS = java.util.Set.of("stop", "length", "tool_calls",
            "content_filter", "function_call");

    /**
     * Finish reasons that say the answer failed rather than ended, in any case: vLLM's {@code abort} (the engine
     * dropped the request), {@code error}, {@code cancelled}. Passing them on as {@code stop} would make a cut-short
     * answer look whole.
     */
    private static final java.util.Set<String> FAILED_FINISH_REASONS = java.util.Set.of("error", "abort",
            "cancelled", "canceled");

    /**
     * A server's finish reason in OpenAI's terms: OpenAI's own as they are; a length cap by another name
     * ({@code max_tokens}, {@code model_length}) is {@code length}, {@code tool_use} is {@code tool_calls}, and any
     * other (TGI's {@code eos_token}, {@code end_turn}, …) an ordinary {@code stop}.
     */
    static String finishReason(String given) {
        if (FINISH_REASONS.contains(given)) {
            return given;
        }
        return switch (given) {
            case "max_tokens", "model_length", "max_length" -> "length";
            case "tool_use" -> "tool_calls";
            default -> "stop";
        };
    }

    /** Turns the upstream's SSE lines into listener events; exactly one terminal event. */
    private final class StreamDecoder extends StreamDecoderBase {
        private final OpenAiChunk.ToolCallIndexes toolIndexes = new OpenAiChunk.ToolCallIndexes();
        private String finishReason;
        private TokenUsage usage;
        /** The current event is named {@code error} ({@code event: error}): its data is an error, in any shape. */
        private boolean errorEvent;

        StreamDecoder(UpstreamListener listener) {
            super(name, listener, http.clock());
        }

        @Override
        public synchronized void line(String line) {
            if (!open()) {
                return;
            }
            if (line.isEmpty()) {
                // The blank line after an event: its data lines, if several, had to make a chunk.
                OpenAiChunk chunk = eventEnded("chunk", text -> OpenAiChunk.read(text, toolIndexes));
                if (chunk != null) {
                    handle(chunk);
                }
                errorEvent = false;
                return;
            }
            if (!line.startsWith("data:")) {
                if (line.startsWith(":")) {
                    alive(); // a keep-alive comment
                } else if (line.startsWith("event:")) {
                    errorEvent = line.substring(6).strip().equals("error");
                }
                return; // other fields (id, retry)
            }
            String data = line.substring(5).strip();
            if (!dataPending()) {
                if (data.isEmpty()) {
                    alive(); // an event without data: nothing to read, but the provider is there
                    return;
                }
                if (data.equals("[DONE]")) {
                    finish(finishReason == null ? "stop" : finishReason, usage);
                    return;
                }
                if (errorEvent) {
                    // An event named error: its data is the error, in OpenAI's shape or not ({"message": …}, text).
                    OpenAiChunk chunk = errorChunk(data);
                    if (chunk != null) {
                        handle(chunk);
                    } else {
                        reportedError(502, false, errorMessage(data));
                    }
                    return;
                }
            }
            OpenAiChunk chunk = readData(data, text -> OpenAiChunk.read(text, toolIndexes));
            if (chunk != null) {
                handle(chunk);
            }
        }

        /** The {@code message} of an error event's JSON object ({"message": …}), else its data as it came. */
        private String errorMessage(String data) {
            try {
                Object read = json.readValue(data, Argument.OBJECT_ARGUMENT);
                if (read instanceof Map<?, ?> object && object.get("message") instanceof String message
                        && !message.isBlank()) {
                    return message;
                }
            } catch (IOException | RuntimeException notJson) {
                // plain text: said as it came
            }
            return data;
        }

        /** The data of an error event as a chunk when it carries an error object in OpenAI's shape, else null. */
        private OpenAiChunk errorChunk(String data) {
            try {
                OpenAiChunk chunk = OpenAiChunk.read(data, toolIndexes);
                return chunk.error() != null ? chunk : null;
            } catch (IOException | RuntimeException notAChunk) {
                return null;
            }
        }

        private void handle(OpenAiChunk chunk) {
            if (errorEvent && chunk.error() == null) {
                // An event named error, of several data lines, whose data has no error object: an error all the same.
                reportedError(502, false, "an event named error");
                return;
            }
            if (chunk.error() != null) {
                if (chunk.rejected() && !chunk.rateLimited()) {
                    // The request refused in the stream (vLLM's context-length error): as a 400 status would be.
                    reportedRejection(chunk.error());
                    return;
                }
                // A provider may say in its stream that it is rate limited: capacity, as a 429 status would be.
                reportedError(chunk.rateLimited() ? 429 : 502, chunk.rateLimited(), chunk.error());
                return;
            }
            if (chunk.hasUsage()) {
                usage = new TokenUsage(chunk.promptTokens(), chunk.completionTokens());
            }
            if (chunk.logprobsJson() != null && !chunk.logprobsJson().equals("[]")) {
                listener.onLogprobs(chunk.logprobsJson()); // before the output they belong to
            }
            boolean output = false;
            if (chunk.reasoning() != null && !chunk.reasoning().isEmpty()) {
                text(AnswerChannel.REASONING, chunk.reasoning());
                output = true;
            }
            if (chunk.content() != null && !chunk.content().isEmpty()) {
                delta(chunk.content());
                output = true;
            }
            if (chunk.refusal() != null && !chunk.refusal().isEmpty()) {
                text(AnswerChannel.REFUSAL, chunk.refusal());
                output = true;
            }
            if (chunk.toolCallsJson() != null && !chunk.toolCallsJson().equals("[]")) {
                toolCallDelta(chunk.toolCallsJson());
                output = true;
            }
            if (!output) {
                alive(); // a chunk without output (the role, an empty delta) still says the provider is there
            }
            if (chunk.finishReason() != null
                    && FAILED_FINISH_REASONS.contains(chunk.finishReason().toLowerCase(java.util.Locale.ROOT))) {
                reportedError(502, false, "the answer ended with finish_reason \"" + chunk.finishReason() + "\"");
                return;
            }
            if (chunk.finishReason() != null && chunk.hasUsage()) {
                // The finishing chunk carries the usage (DeepSeek, servers that report usage in every chunk): the
                // answer is whole, whether or not [DONE] follows (an audit: held open, it waited 5 s for more).
                finish(finishReason(chunk.finishReason()), usage);
            } else if (chunk.finishReason() != null) {
                finishReason = finishReason(chunk.finishReason());
                listener.onFinishReason(finishReason, usage); // only the usage chunk and [DONE] may follow
            } else if (finishReason != null && chunk.hasUsage() && !output) {
                // The usage chunk that follows the finishing one is the answer's last: it is complete, whether or not
                // [DONE] follows (an audit: a server that sent it and then held the connection open had a whole
                // answer end as failed at the idle timeout).
                finish(finishReason, usage);
            }
        }

        @Override
        public synchronized void ended() {
            if (open() && dataPending()) {
                line(""); // a body that ends without the blank line after its last event: that event ends too
            }
            // Some servers end the body right after the finishing chunk without [DONE]: that answer is complete.
            if (open() && finishReason != null) {
                finish(finishReason, usage);
            }
            super.ended();
        }
    }
}
