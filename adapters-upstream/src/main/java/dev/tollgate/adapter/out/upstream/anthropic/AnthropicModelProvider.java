package dev.tollgate.adapter.out.upstream.anthropic;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.JsonValues;
import dev.tollgate.adapter.out.upstream.common.StreamDecoderBase;
import dev.tollgate.adapter.out.upstream.common.StreamingExchange;
import dev.tollgate.adapter.out.upstream.common.ToolCallIds;
import dev.tollgate.adapter.out.upstream.common.UpstreamHttp;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Upstream adapter: Anthropic's Messages API, translated both ways. Requests: system and developer messages become
 * {@code system}, tool calls become {@code tool_use} blocks, tool messages {@code tool_result} blocks, tools and
 * tool_choice their Anthropic forms ({@link AnthropicRequests}). Streams: {@code text_delta} becomes content
 * deltas, {@code tool_use} blocks and {@code input_json_delta} become {@code delta.tool_calls}, stop reasons map to
 * finish reasons, and usage is taken from {@code message_start} (the prompt) and {@code message_delta} (the
 * output).
 *
 * <p>Settings: {@code base-url} (default {@code https://api.anthropic.com}), {@code api-key-env},
 * {@code anthropic-version} (default {@code 2023-06-01}), {@code connect-timeout-ms} (default 5000).
 */
public final class AnthropicModelProvider implements ModelProvider {

    private final String name;
    private final URI endpoint;
    private final String apiKey;
    private final String version;
    private final UpstreamHttp http;
    private final Duration connectTimeout;
    private final JsonMapper json;

    public AnthropicModelProvider(CatalogFile.ProviderSettings settings, UpstreamHttp http, JsonMapper json) {
        this.name = settings.name();
        this.endpoint = StreamDecoderBase.endpoint(settings, "https://api.anthropic.com", "/v1/messages");
        this.apiKey = StreamDecoderBase.apiKey(settings);
        this.version = settings.string("anthropic-version", "2023-06-01");
        this.http = http;
        this.connectTimeout = StreamDecoderBase.connectTimeout(settings);
        this.json = json;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
        String body;
        try {
            body = json.writeValueAsString(new AnthropicRequests(json).messagesRequest(route, request, maxTokens));
        } catch (AnthropicRequests.Untranslatable e) {
            listener.onFailure(UpstreamFailure.invalidRequest(e.param(), e.getMessage()));
            return () -> { };
        } catch (IOException | IllegalArgumentException e) {
            listener.onFailure(new UpstreamFailure(400, false, false, null,
                    "cannot translate the request for " + name + ": " + e.getMessage()));
            return () -> { };
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "text/event-stream");
        headers.put("anthropic-version", version);
        if (apiKey != null && !apiKey.isBlank()) {
            headers.put("x-api-key", apiKey);
        }
        return http.post(endpoint, headers, body.getBytes(StandardCharsets.UTF_8), connectTimeout, listener,
                decoder(listener));
    }

    /** The decoder of one answer's stream: what {@link #call} reads the provider's lines with (tests drive it). */
    StreamingExchange.Decoder decoder(UpstreamListener listener) {
        return new EventDecoder(listener);
    }

    /** Reads Anthropic's typed SSE events; exactly one terminal listener event. */
    private final class EventDecoder extends StreamDecoderBase {
        private final Map<Integer, Integer> toolIndexByBlock = new LinkedHashMap<>();
        private final Set<Integer> toolsWithArguments = new HashSet<>();
        private long inputTokens = -1;
        private long outputTokens = -1;
        /** Prompt tokens written to or read from Anthropic's prompt cache: not part of input_tokens, billed too. */
        private long cacheCreationTokens;
        private long cacheReadTokens;
        private String stopReason;

        EventDecoder(UpstreamListener listener) {
            super(name, listener, http.clock());
        }

        /** 529 is Anthropic's "overloaded": capacity, like 429. */
        @Override
        protected boolean capacityStatus(int status) {
            return status == 429 || status == 529;
        }

        @Override
        public synchronized void line(String line) {
            if (!open()) {
                return;
            }
            if (line.isEmpty()) {
                // The blank line after an event: its data lines, if several, had to make one.
                Map<String, Object> event = eventEnded("event", this::readEvent);
                if (event != null) {
                    handle(event);
                }
                return;
            }
            if (!line.startsWith("data:")) {
                if (line.startsWith(":")) {
                    alive(); // a keep-alive comment
                }
                return; // "event:" lines repeat the type that the data carries
            }
            String data = line.substring(5).strip();
            if (data.isEmpty() && !dataPending()) {
                alive(); // an event without data: nothing to read, but the provider is there
                return;
            }
            Map<String, Object> event = readData(data, this::readEvent);
            if (event != null) {
                handle(event);
            }
        }

        private Map<String, Object> readEvent(String text) throws IOException {
            Map<String, Object> read = json.readValue(text, Argument.mapOf(String.class, Object.class));
            if (read == null) {
                throw new IOException("an event is a JSON object");
            }
            return read;
        }

        private void handle(Map<String, Object> event) {
            String type = String.valueOf(event.get("type"));
            switch (type) {
                case "message_start" -> {
                    if (event.get("message") instanceof Map<?, ?> message && message.get("usage") instanceof Map<?, ?> u) {
                        usage(u, false);
                        if (inputTokens >= 0) {
                            // The prompt as Anthropic bills it, cache included: what a failure or a client's
                            // leaving before message_delta bills as the prompt.
                            listener.onPromptCounted(saturated(inputTokens, cacheCreationTokens, cacheReadTokens));
                        }
                    }
                    alive(); // the answer's body began (no output yet)
                }
                case "content_block_start" -> {
                    alive();
                    blockStart(event);
                }
                case "content_block_delta" -> blockDelta(event);
                case "content_block_stop" -> {
                    alive();
                    blockStop(event);
                }
                case "message_delta" -> {
                    alive();
                    if (event.get("delta") instanceof Map<?, ?> delta && delta.get("stop_reason") instanceof String r) {
                        stopReason = r;
                    }
                    if (event.get("usage") instanceof Map<?, ?> u) {
                        usage(u, true);
                    }
                    if (stopReason != null) {
                        // The answer is whole: only message_stop follows. A server that holds the connection open
                        // instead is finished after a short wait, not failed at the idle timeout.
                        listener.onFinishReason(finishReason(stopReason), usageSoFar());
                    }
                }
                case "message_stop" -> finish();
                case "error" -> {
                    Object message = event.get("error") instanceof Map<?, ?> e ? e.get("message") : event;
                    Object errorType = event.get("error") instanceof Map<?, ?> e ? e.get("type") : null;
                    // Capacity, as the HTTP statuses 529 and 429 are: another provider, or a 429 with a wait.
                    boolean overloaded = "overloaded_error".equals(errorType);
                    boolean limited = "rate_limit_error".equals(errorType);
                    if ("invalid_request_error".equals(errorType)
                            && meaning(400, String.valueOf(message)) == 400) {
                        // The request itself (too long a prompt, say), as its HTTP 400 would be: not retried, and
                        // the client's 400 before any output (an audit: retried four times, then a 502). A credit
                        // balance too low is the operator's standing, as its HTTP 400 is: another route.
                        reportedRejection(message);
                    } else {
                        reportedError(overloaded ? 529 : limited ? 429 : 502, overloaded || limited, message);
                    }
                }
                default -> alive(); // ping, and what the gateway does not use: the provider is there
            }
        }

        @Override
        public synchronized void ended() {
            if (open() && dataPending()) {
                line(""); // a body that ends without the blank line after its last event: that event ends too
            }
            super.ended();
        }

        @Override
        protected int meaning(int status, String body) {
            // "Your credit balance is too low to access the Anthropic API": the operator's account, as a 402.
            return status == 400 && body != null && body.contains("credit balance is too low") ? 402
                    : super.meaning(status, body);
        }

        /**
         * Reads a usage object. {@code message_start}'s {@code output_tokens} is a placeholder (Anthropic sends 1
         * there): only {@code message_delta}'s ({@code withOutput}) is the answer's count, and without one the
         * output is counted by the gateway (an audit: a server whose {@code message_delta} had no count was billed
         * 1 token for 20).
         */
        private void usage(Map<?, ?> usage, boolean withOutput) {
            // Counts as written: one too large to be a count is the largest (what is billed is capped by the run).
            if (usage.get("input_tokens") instanceof Number in) {
                inputTokens = JsonValues.count(in);
            }
            if (withOutput && usage.get("output_tokens") instanceof Number out) {
                outputTokens = JsonValues.count(out);
            }
            if (usage.get("cache_creation_input_tokens") instanceof Number written) {
                cacheCreationTokens = JsonValues.count(written);
            }
            if (usage.get("cache_read_input_tokens") instanceof Number read) {
                cacheReadTokens = JsonValues.count(read);
            }
        }

        private void blockStart(Map<String, Object> event) {
            if (event.get("content_block") instanceof Map<?, ?> block && "tool_use".equals(block.get("type"))) {
                if (!(block.get("name") instanceof String toolName) || toolName.isEmpty()) {
                    malformed("a tool call without a name");
                    return;
                }
                int blockIndex = blockIndex(event);
                int toolIndex = toolIndexByBlock.size();
                toolIndexByBlock.put(blockIndex, toolIndex);
                Map<String, Object> function = new LinkedHashMap<>();
                function.put("name", toolName);
                String input = "";
                if (block.get("input") instanceof Map<?, ?> given && !given.isEmpty()) {
                    // The whole input at once (a provider that sends no input_json_delta for it).
                    try {
                        input = json.writeValueAsString(given);
                    } catch (IOException e) {
                        fail(new UpstreamFailure(502, false, false, null, "cannot encode a tool call from " + name));
                        return;
                    }
                    toolsWithArguments.add(toolIndex);
                }
                function.put("arguments", input);
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("index", toolIndex);
                call.put("id", block.get("id") instanceof String id && !id.isEmpty() ? id : ToolCallIds.generated());
                call.put("type", "function");
                call.put("function", function);
                toolCalls(call);
            } else if (event.get("content_block") instanceof Map<?, ?> block && block.get("text") instanceof String t
                    && !t.isEmpty()) {
                delta(t);
            } else if (event.get("content_block") instanceof Map<?, ?> block && "thinking".equals(block.get("type"))
                    && block.get("thinking") instanceof String t && !t.isEmpty()) {
                text(AnswerChannel.REASONING, t);
            }
        }

        private void blockDelta(Map<String, Object> event) {
            if (!(event.get("delta") instanceof Map<?, ?> delta)) {
                return;
            }
            if ("text_delta".equals(delta.get("type")) && delta.get("text") instanceof String text && !text.isEmpty()) {
                delta(text);
            } else if ("thinking_delta".equals(delta.get("type")) && delta.get("thinking") instanceof String thinking
                    && !thinking.isEmpty()) {
                text(AnswerChannel.REASONING, thinking);
            } else if ("input_json_delta".equals(delta.get("type"))
                    && delta.get("partial_json") instanceof String partial) {
                Integer toolIndex = toolIndexByBlock.get(blockIndex(event));
                if (toolIndex != null && !partial.isEmpty()) {
                    toolsWithArguments.add(toolIndex);
                    Map<String, Object> call = new LinkedHashMap<>();
                    call.put("index", toolIndex);
                    call.put("function", Map.of("arguments", partial));
                    toolCalls(call);
                }
            }
        }

        /** A tool called without input: its arguments are the empty object, as OpenAI sends them, never "". */
        private void blockStop(Map<String, Object> event) {
            noInput(toolIndexByBlock.get(blockIndex(event)));
        }

        /** The content block an event is about: its {@code index}, 0 when it has none that is a number. */
        private static int blockIndex(Map<String, Object> event) {
            return event.get("index") instanceof Number index ? (int) Math.min(Integer.MAX_VALUE,
                    JsonValues.count(index)) : 0;
        }

        private void noInput(Integer toolIndex) {
            if (toolIndex != null && toolsWithArguments.add(toolIndex)) {
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("index", toolIndex);
                call.put("function", Map.of("arguments", "{}"));
                toolCalls(call);
            }
        }

        private void toolCalls(Map<String, Object> call) {
            try {
                toolCallDelta(json.writeValueAsString(List.of(call)));
            } catch (IOException e) {
                fail(new UpstreamFailure(502, false, false, null, "cannot encode a tool call from " + name));
            }
        }

        private void finish() {
            toolIndexByBlock.values().forEach(this::noInput); // a block that ended without its content_block_stop
            finish(finishReason(stopReason), usageSoFar());
        }

        /** The usage reported so far, or null while a count is missing. */
        private TokenUsage usageSoFar() {
            // Cached prompt tokens count as prompt tokens at the route's input price (docs/decisions.md).
            return inputTokens >= 0 && outputTokens >= 0
                    ? new TokenUsage(saturated(inputTokens, cacheCreationTokens, cacheReadTokens), outputTokens)
                    : null;
        }
    }

    /** The prompt's tokens: the input and those written to and read from the cache, at most the largest count. */
    private static long saturated(long input, long cacheWritten, long cacheRead) {
        long sum = input;
        for (long part : new long[] {cacheWritten, cacheRead}) {
            sum = part <= 0 ? sum : Long.MAX_VALUE - sum < part ? Long.MAX_VALUE : sum + part;
        }
        return sum;
    }

    /** Anthropic stop reasons in chat-completions terms. */
    static String finishReason(String stopReason) {
        if (stopReason == null) {
            return "stop";
        }
        return switch (stopReason) {
            case "max_tokens" -> "length";
            case "tool_use" -> "tool_calls";
            case "refusal" -> "content_filter";
            // The context window ran out mid-answer: cut short, as with max_tokens.
            case "model_context_window_exceeded" -> "length";
            default -> "stop"; // end_turn, stop_sequence, pause_turn
        };
    }
}
