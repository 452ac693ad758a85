package dev.tollgate.domain.completion;

import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A validated chat-completion request (§2.3). Sampling parameters are exact decimals (they are never money, but
 * there is no reason to round them either); structured fields the gateway does not interpret (tools,
 * tool_choice, response_format) stay as the client's JSON. Absent optional values are {@code null}.
 * {@code maxTokensField} is the request field that carried {@code maxTokens} ({@code max_tokens} or its synonym
 * {@code max_completion_tokens}), so that a refusal of the bound names the field the client sent.
 * {@code parallelToolCalls} is the client's {@code parallel_tool_calls} with tools (null: the provider's default).
 */
public record ChatRequest(
        ModelId model,
        List<ChatMessage> messages,
        Integer maxTokens,
        BigDecimal temperature,
        BigDecimal topP,
        BigDecimal frequencyPenalty,
        BigDecimal presencePenalty,
        List<String> stop,
        Long seed,
        boolean logprobs,
        Integer topLogprobs,
        String responseFormatJson,
        String toolsJson,
        String toolChoiceJson,
        String user,
        boolean stream,
        String maxTokensField,
        Boolean parallelToolCalls) {

    public ChatRequest {
        Objects.requireNonNull(model);
        messages = List.copyOf(messages);
        stop = stop == null ? List.of() : List.copyOf(stop);
        Objects.requireNonNull(maxTokensField);
    }

    /** A request without {@code parallel_tool_calls} (the provider's default). */
    public ChatRequest(ModelId model, List<ChatMessage> messages, Integer maxTokens, BigDecimal temperature,
            BigDecimal topP, BigDecimal frequencyPenalty, BigDecimal presencePenalty, List<String> stop, Long seed,
            boolean logprobs, Integer topLogprobs, String responseFormatJson, String toolsJson, String toolChoiceJson,
            String user, boolean stream, String maxTokensField) {
        this(model, messages, maxTokens, temperature, topP, frequencyPenalty, presencePenalty, stop, seed, logprobs,
                topLogprobs, responseFormatJson, toolsJson, toolChoiceJson, user, stream, maxTokensField, null);
    }

    /** A request whose bound, if any, came as {@code max_tokens}. */
    public ChatRequest(ModelId model, List<ChatMessage> messages, Integer maxTokens, BigDecimal temperature,
            BigDecimal topP, BigDecimal frequencyPenalty, BigDecimal presencePenalty, List<String> stop, Long seed,
            boolean logprobs, Integer topLogprobs, String responseFormatJson, String toolsJson, String toolChoiceJson,
            String user, boolean stream) {
        this(model, messages, maxTokens, temperature, topP, frequencyPenalty, presencePenalty, stop, seed, logprobs,
                topLogprobs, responseFormatJson, toolsJson, toolChoiceJson, user, stream, "max_tokens");
    }

    public ModelCapabilities.RequestedFeatures features() {
        return new ModelCapabilities.RequestedFeatures(toolsJson != null, responseFormatJson != null, logprobs,
                images() > 0);
    }

    /** The image parts of all messages. */
    public int images() {
        int images = 0;
        for (ChatMessage message : messages) {
            images += message.images();
        }
        return images;
    }

    /**
     * The texts of the definitions that go upstream with the messages and count as prompt: every string (names,
     * descriptions, schema keys and values) of {@code tools}, {@code tool_choice} and {@code response_format}.
     */
    public String definitionsText() {
        StringBuilder text = new StringBuilder();
        for (String json : new String[] {toolsJson, toolChoiceJson, responseFormatJson}) {
            if (json != null) {
                JsonStrings.mapLiterals(json, literal -> {
                    text.append(literal).append(' ');
                    return literal;
                });
            }
        }
        return text.toString();
    }

    /**
     * The same request with every text that goes upstream passed through {@code sanitiser}: each message's text
     * and the strings of its JSON, the stop sequences, the strings of {@code tools}, {@code tool_choice} and
     * {@code response_format} (descriptions, schemas, examples), and the {@code user} field. A message's text parts
     * are redacted as the one text a model reads them as (data split across parts is found); an image part's
     * {@code url} is left alone (base64 image data is no text, and a redaction in it breaks the image).
     */
    public ChatRequest sanitised(PiiRedactor sanitiser) {
        List<ChatMessage> clean = messages.stream().map(m -> new ChatMessage(m.role(), sanitiser.apply(m.text()),
                sanitisedJson(m.json(), sanitiser), sanitiser.apply(m.extra()), m.images())).toList();
        return new ChatRequest(model, clean, maxTokens, temperature, topP, frequencyPenalty, presencePenalty,
                stop.stream().map(sanitiser).toList(), seed, logprobs, topLogprobs,
                literals(responseFormatJson, sanitiser), literals(toolsJson, sanitiser),
                literals(toolChoiceJson, sanitiser), user == null ? null : sanitiser.apply(user), stream,
                maxTokensField, parallelToolCalls);
    }

    /** {@code tool_choice: "none"}: tools are declared, but none may be called. */
    public boolean toolUseRuledOut() {
        return "\"none\"".equals(toolChoiceJson);
    }

    /** The same request without {@code tools} and {@code tool_choice}. */
    public ChatRequest withoutTools() {
        return new ChatRequest(model, messages, maxTokens, temperature, topP, frequencyPenalty, presencePenalty, stop,
                seed, logprobs, topLogprobs, responseFormatJson, null, null, user, stream, maxTokensField, null);
    }

    private static String sanitisedJson(String message, PiiRedactor sanitiser) {
        List<String> parts = new java.util.ArrayList<>();
        JsonStrings.mapMemberLiterals(message, (member, literal) -> {
            if ("text".equals(member)) {
                parts.add(literal);
            }
            return literal;
        });
        java.util.Iterator<String> clean = sanitiser.applyJoined(parts).iterator();
        return JsonStrings.mapMemberLiterals(message, (member, literal) -> "text".equals(member) ? clean.next()
                : "url".equals(member) ? literal : sanitiser.apply(literal));
    }

    private static String literals(String json, UnaryOperator<String> sanitiser) {
        return json == null ? null : JsonStrings.mapLiterals(json, sanitiser);
    }

    /**
     * How many characters of text the request sends upstream: every message's text and JSON extras, the stop
     * sequences and the definitions ({@code tools}, {@code tool_choice}, {@code response_format}) as written —
     * in characters as a person counts them (Unicode code points: an emoji is one, not its two UTF-16 units).
     * Cheap to compute, so a surface can refuse an oversized prompt before anything reads it closely.
     */
    public long textLength() {
        long length = 0;
        for (ChatMessage message : messages) {
            length += characters(message.text()) + characters(message.extra());
        }
        for (String sequence : stop) {
            length += characters(sequence);
        }
        for (String json : new String[] {toolsJson, toolChoiceJson, responseFormatJson}) {
            length += json == null ? 0 : characters(json);
        }
        return length;
    }

    private static int characters(String text) {
        return text.codePointCount(0, text.length());
    }

    /** All message text, for token estimates and the simulator. */
    public String promptText() {
        StringBuilder text = new StringBuilder();
        for (ChatMessage message : messages) {
            text.append(message.role()).append(": ").append(message.text()).append('\n');
        }
        return text.toString();
    }
}
