package dev.tollgate.adapter.out.upstream.anthropic;

import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Translates a chat-completions request into an Anthropic Messages request (streaming). */
final class AnthropicRequests {

    private final JsonMapper json;

    AnthropicRequests(JsonMapper json) {
        this.json = json;
    }

    Map<String, Object> messagesRequest(ProviderRoute route, ChatRequest request, int maxTokens) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", route.upstreamModel());
        body.put("max_tokens", maxTokens);
        body.put("stream", true);
        StringBuilder system = new StringBuilder();
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < request.messages().size(); i++) {
            ChatMessage message = request.messages().get(i);
            Map<String, Object> original = json.readValue(message.json(), Argument.mapOf(String.class, Object.class));
            switch (message.role()) {
                case "system", "developer" -> system.append(system.isEmpty() ? "" : "\n\n").append(message.text());
                case "assistant" -> append(messages, "assistant", assistantBlocks(message, original, i));
                case "tool", "function" -> append(messages, "user", List.of(toolResult(message, original)));
                default -> append(messages, "user", userBlocks(message, original));
            }
        }
        if (messages.isEmpty()) {
            throw new Untranslatable("messages", "this model's provider (Anthropic's Messages API) needs at least "
                    + "one user or assistant message with content besides the system prompt");
        }
        if (!system.isEmpty()) {
            body.put("system", system.toString());
        }
        body.put("messages", messages);
        if (request.temperature() != null) {
            // Anthropic's range is 0–1; chat-completions allows up to 2.
            body.put("temperature", request.temperature().min(java.math.BigDecimal.ONE));
        }
        if (request.topP() != null) {
            body.put("top_p", request.topP());
        }
        if (!request.stop().isEmpty()) {
            body.put("stop_sequences", request.stop());
        }
        if (request.toolsJson() != null) {
            body.put("tools", tools(request.toolsJson()));
            Map<String, Object> choice = request.toolChoiceJson() == null ? null
                    : toolChoice(json.readValue(request.toolChoiceJson(), Argument.OBJECT_ARGUMENT));
            if (Boolean.FALSE.equals(request.parallelToolCalls())) {
                // parallel_tool_calls: false is Anthropic's disable_parallel_tool_use, part of its tool_choice
                // (meaningless with "none").
                choice = new LinkedHashMap<>(choice == null ? Map.of("type", "auto") : choice);
                if (!"none".equals(choice.get("type"))) {
                    choice.put("disable_parallel_tool_use", true);
                }
            }
            if (choice != null) {
                body.put("tool_choice", choice);
            }
        }
        if (request.user() != null) {
            body.put("metadata", Map.of("user_id", request.user()));
        }
        return body;
    }

    /** Anthropic wants alternating turns: consecutive messages of one role are merged. */
    private static void append(List<Map<String, Object>> messages, String role, List<Map<String, Object>> blocks) {
        if (blocks.isEmpty()) {
            return;
        }
        if (!messages.isEmpty() && role.equals(messages.get(messages.size() - 1).get("role"))) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> content = (List<Map<String, Object>>) messages.get(messages.size() - 1)
                    .get("content");
            content.addAll(blocks);
            return;
        }
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("role", role);
        message.put("content", new ArrayList<>(blocks));
        messages.add(message);
    }

    /**
     * A user turn: its text, or — when it came as parts — each part in order, images as Anthropic image blocks (a
     * {@code data:} URL as base64 with its media type, any other URL by reference), so a route that takes images
     * sends them rather than the text alone.
     */
    private static List<Map<String, Object>> userBlocks(ChatMessage message, Map<String, Object> original) {
        if (message.images() == 0 || !(original.get("content") instanceof List<?> parts)) {
            return message.text().isEmpty() ? List.of() : List.of(text(message.text()));
        }
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (Object part : parts) {
            if (!(part instanceof Map<?, ?> p)) {
                continue;
            }
            if ("text".equals(p.get("type")) && p.get("text") instanceof String t && !t.isEmpty()) {
                blocks.add(text(t));
            } else if ("image_url".equals(p.get("type")) && p.get("image_url") instanceof Map<?, ?> image
                    && image.get("url") instanceof String url) {
                blocks.add(image(url));
            }
        }
        return blocks;
    }

    private static Map<String, Object> image(String url) {
        Map<String, Object> source = new LinkedHashMap<>();
        int comma = url.indexOf(',');
        String head = comma < 0 ? "" : url.substring(0, comma);
        if (head.regionMatches(true, 0, "data:", 0, 5) && head.endsWith(";base64")) {
            source.put("type", "base64");
            source.put("media_type", head.substring(5, head.length() - ";base64".length()));
            source.put("data", url.substring(comma + 1));
        } else {
            source.put("type", "url");
            source.put("url", url);
        }
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "image");
        block.put("source", source);
        return block;
    }

    private List<Map<String, Object>> assistantBlocks(ChatMessage message, Map<String, Object> original, int index)
            throws IOException {
        List<Map<String, Object>> blocks = new ArrayList<>();
        if (!message.text().isEmpty()) {
            blocks.add(text(message.text()));
        }
        if (original.get("tool_calls") instanceof List<?> calls) {
            for (int c = 0; c < calls.size(); c++) {
                if (calls.get(c) instanceof Map<?, ?> call && call.get("function") instanceof Map<?, ?> function) {
                    Map<String, Object> block = new LinkedHashMap<>();
                    block.put("type", "tool_use");
                    block.put("id", call.get("id"));
                    block.put("name", function.get("name"));
                    String where = "messages[" + index + "].tool_calls[" + c + "].function.arguments";
                    block.put("input", input(function.get("arguments"), where));
                    blocks.add(block);
                }
            }
        }
        return blocks;
    }

    /** Anthropic takes a tool call's input as a JSON object, where chat completions carry its text. */
    private Object input(Object arguments, String where) {
        if (!(arguments instanceof String text) || text.isBlank()) {
            return Map.of();
        }
        Object parsed;
        try {
            parsed = json.readValue(text, Argument.OBJECT_ARGUMENT);
        } catch (IOException | RuntimeException e) {
            parsed = null;
        }
        if (!(parsed instanceof Map<?, ?>)) {
            throw new Untranslatable(where, where + " must be the text of a JSON object for this model's provider "
                    + "(Anthropic's Messages API takes tool input as an object), got '"
                    + (text.length() <= 40 ? text : text.substring(0, 40) + "…") + "'");
        }
        return parsed;
    }

    /** A request that Anthropic's Messages API cannot express: the client's, with the field at fault. */
    static final class Untranslatable extends IllegalArgumentException {
        private final String param;

        Untranslatable(String param, String message) {
            super(message);
            this.param = param;
        }

        String param() {
            return param;
        }
    }

    private static Map<String, Object> toolResult(ChatMessage message, Map<String, Object> original) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "tool_result");
        block.put("tool_use_id", original.get("tool_call_id"));
        block.put("content", message.text());
        return block;
    }

    private static Map<String, Object> text(String text) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "text");
        block.put("text", text);
        return block;
    }

    private List<Map<String, Object>> tools(String toolsJson) throws IOException {
        List<Map<String, Object>> tools = new ArrayList<>();
        Object parsed = json.readValue(toolsJson, Argument.OBJECT_ARGUMENT);
        if (parsed instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof Map<?, ?> tool && tool.get("function") instanceof Map<?, ?> function) {
                    Map<String, Object> translated = new LinkedHashMap<>();
                    translated.put("name", function.get("name"));
                    if (function.get("description") != null) {
                        translated.put("description", function.get("description"));
                    }
                    Object schema = function.get("parameters");
                    translated.put("input_schema", schema != null ? schema : Map.of("type", "object"));
                    tools.add(translated);
                }
            }
        }
        return tools;
    }

    private static Map<String, Object> toolChoice(Object choice) {
        if (choice instanceof String s) {
            return switch (s) {
                case "required" -> Map.of("type", "any");
                case "none" -> Map.of("type", "none");
                default -> Map.of("type", "auto");
            };
        }
        if (choice instanceof Map<?, ?> m && m.get("function") instanceof Map<?, ?> function) {
            return Map.of("type", "tool", "name", String.valueOf(function.get("name")));
        }
        return Map.of("type", "auto");
    }
}
