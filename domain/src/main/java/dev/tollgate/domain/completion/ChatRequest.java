package dev.tollgate.domain.completion;

import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;

/**
 * A validated chat-completion request (§2.3). Sampling parameters are exact decimals (they are never money, but
 * there is no reason to round them either); structured fields the gateway does not interpret (tools,
 * tool_choice, response_format) stay as the client's JSON. Absent optional values are {@code null}.
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
        boolean stream) {

    public ChatRequest {
        Objects.requireNonNull(model);
        messages = List.copyOf(messages);
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    public ModelCapabilities.RequestedFeatures features() {
        return new ModelCapabilities.RequestedFeatures(toolsJson != null, responseFormatJson != null, logprobs,
                seed != null);
    }

    /**
     * The same request with what a person wrote passed through {@code sanitiser}: every message's text and the
     * string values of its JSON, and the {@code user} field.
     */
    public ChatRequest sanitised(java.util.function.UnaryOperator<String> sanitiser) {
        List<ChatMessage> clean = messages.stream().map(m -> new ChatMessage(m.role(), sanitiser.apply(m.text()),
                JsonStrings.mapLiterals(m.json(), sanitiser))).toList();
        return new ChatRequest(model, clean, maxTokens, temperature, topP, frequencyPenalty, presencePenalty, stop,
                seed, logprobs, topLogprobs, responseFormatJson, toolsJson, toolChoiceJson,
                user == null ? null : sanitiser.apply(user), stream);
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
