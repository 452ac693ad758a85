package dev.tollgate.adapter.out.upstream.anthropic;

import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.shared.Sha256;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

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
        List<Map<String, Object>> system = new ArrayList<>();
        List<Map<String, Object>> messages = new ArrayList<>();
        // OpenAI's legacy function calling: the id given to each function's latest call, for its result.
        Map<String, String> legacyCalls = new LinkedHashMap<>();
        for (int i = 0; i < request.messages().size(); i++) {
            ChatMessage message = request.messages().get(i);
            Map<String, Object> original = json.readValue(message.json(), Argument.mapOf(String.class, Object.class));
            switch (message.role()) {
                case "system", "developer" -> system.addAll(textBlocks(message, original));
                case "assistant" -> append(messages, "assistant", assistantBlocks(message, original, i, legacyCalls));
                case "tool" -> append(messages, "user", List.of(toolResult(message, original,
                        toolId(original.get("tool_call_id")))));
                case "function" -> append(messages, "user", List.of(toolResult(message, original,
                        legacyResultId(original, legacyCalls, i))));
                default -> append(messages, "user", userBlocks(message, original, i));
            }
        }
        endPrefill(messages);
        if (messages.isEmpty()) {
            throw new Untranslatable("messages", "this model's provider (Anthropic's Messages API) needs at least "
                    + "one user or assistant message with content besides the system prompt");
        }
        if (system.size() == 1) {
            body.put("system", system.get(0).get("text"));
        } else if (!system.isEmpty()) {
            body.put("system", system); // each message and text part a block of its own, not run together
        }
        body.put("messages", messages);
        if (request.temperature() != null) {
            // Anthropic's range is 0–1; chat-completions allows up to 2.
            body.put("temperature", request.temperature().min(java.math.BigDecimal.ONE));
        } else if (request.topP() != null) {
            // Anthropic's newer models refuse temperature and top_p together, and advise setting one: temperature
            // wins (docs/decisions.md).
            body.put("top_p", request.topP());
        }
        // Anthropic refuses a stop sequence of whitespace only ("\n" is a common one in chat completions): such
        // sequences are left out rather than failing the request (docs/decisions.md).
        List<String> stops = request.stop().stream().filter(stop -> !stop.isBlank()).toList();
        if (!stops.isEmpty()) {
            body.put("stop_sequences", stops);
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
            // Anthropic asks for an opaque id (no e-mail, name or phone number), at most 256 characters: the same
            // end user always gets the same hash.
            body.put("metadata", Map.of("user_id", Sha256.hex(request.user())));
        }
        return body;
    }


    /**
     * A conversation that ends with an assistant turn asks Anthropic to continue it (a prefill), and Anthropic
     * refuses a prefill that ends in whitespace: its last text is sent without it.
     */
    private static void endPrefill(List<Map<String, Object>> messages) {
        if (messages.isEmpty() || !"assistant".equals(messages.get(messages.size() - 1).get("role"))) {
            return;
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> content = (List<Map<String, Object>>) messages.get(messages.size() - 1)
                .get("content");
        Map<String, Object> last = content.get(content.size() - 1);
        if ("text".equals(last.get("type")) && last.get("text") instanceof String text) {
            last.put("text", text.stripTrailing());
        }
    }

    /**
     * Anthropic's ids are {@code [a-zA-Z0-9_-]+}; other providers' (e.g. {@code functions.weather:0}) are mapped,
     * and a mapped id carries a digest of the original, so that two ids stay two ({@code call:1} and {@code call_1}
     * were one id for Anthropic, an audit found). The same id always maps alike: a call and its result still match.
     */
    static String toolId(Object id) {
        String text = id == null ? "" : id.toString();
        if (VALID_ID.matcher(text).matches()) {
            return text;
        }
        String clean = text.replaceAll("[^a-zA-Z0-9_-]", "_");
        return (clean.isEmpty() ? "id" : clean) + "_" + Sha256.hex(text).substring(0, 12);
    }

    private static final Pattern VALID_ID = Pattern.compile("[a-zA-Z0-9_-]+");

    /**
     * The tool_use id a legacy {@code function} message answers: the latest {@code function_call} of that name
     * before it. Anthropic refuses a result that answers no call, so one without a call is the client's 400.
     */
    private static String legacyResultId(Map<String, Object> original, Map<String, String> legacyCalls, int index) {
        String id = original.get("name") instanceof String name ? legacyCalls.get(name) : null;
        if (id == null) {
            throw new Untranslatable("messages[" + index + "]", "messages[" + index + "] is the result of function '"
                    + original.get("name") + "', which no earlier assistant message called (function_call); this "
                    + "model's provider (Anthropic's Messages API) takes a result only for a call it saw");
        }
        return id;
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
            for (Map<String, Object> block : blocks) {
                if ("tool_result".equals(block.get("type"))) {
                    // Anthropic wants a user turn's tool results before anything else in it.
                    int at = 0;
                    while (at < content.size() && "tool_result".equals(content.get(at).get("type"))) {
                        at++;
                    }
                    content.add(at, block);
                } else {
                    content.add(block);
                }
            }
            return;
        }
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("role", role);
        message.put("content", new ArrayList<>(blocks));
        messages.add(message);
    }

    /**
     * A user turn: its text, or — when it came as parts — each part in order as a block of its own (texts as text
     * blocks, images as Anthropic image blocks: a {@code data:} URL as base64 with its media type, any other URL by
     * reference). Anthropic refuses a text block of whitespace only: such texts are left out.
     */
    private static List<Map<String, Object>> userBlocks(ChatMessage message, Map<String, Object> original,
            int index) {
        if (!(original.get("content") instanceof List<?> parts)) {
            return message.text().isBlank() ? List.of() : List.of(text(message.text()));
        }
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            if (!(parts.get(i) instanceof Map<?, ?> p)) {
                continue;
            }
            if ("text".equals(p.get("type")) && p.get("text") instanceof String t && !t.isBlank()) {
                blocks.add(text(t));
            } else if ("image_url".equals(p.get("type")) && p.get("image_url") instanceof Map<?, ?> image
                    && image.get("url") instanceof String url) {
                blocks.add(image(url, "messages[" + index + "].content[" + i + "].image_url.url"));
            }
        }
        return blocks;
    }

    /** The image types Anthropic's Messages API takes. */
    private static final java.util.Set<String> IMAGE_TYPES = java.util.Set.of("image/jpeg", "image/png",
            "image/gif", "image/webp");

    private static Map<String, Object> image(String url, String where) {
        Map<String, Object> source = new LinkedHashMap<>();
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            int comma = url.indexOf(',');
            String head = comma < 0 ? "" : url.substring(5, comma).toLowerCase(java.util.Locale.ROOT);
            if (!head.endsWith(";base64")) {
                throw new Untranslatable(where, where + " must be a base64 data URL (data:image/png;base64,…) or "
                        + "an http(s) URL for this model's provider (Anthropic's Messages API)");
            }
            String type = head.substring(0, head.length() - ";base64".length());
            type = type.equals("image/jpg") ? "image/jpeg" : type;
            if (!IMAGE_TYPES.contains(type)) {
                throw new Untranslatable(where, where + " is an image of type '" + type + "'; this model's provider "
                        + "(Anthropic's Messages API) takes image/jpeg, image/png, image/gif and image/webp");
            }
            source.put("type", "base64");
            source.put("media_type", type);
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

    private List<Map<String, Object>> assistantBlocks(ChatMessage message, Map<String, Object> original, int index,
            Map<String, String> legacyCalls) throws IOException {
        List<Map<String, Object>> blocks = new ArrayList<>();
        if (!message.text().isBlank()) {
            blocks.add(text(message.text()));
        }
        if (!(original.get("tool_calls") instanceof List<?>) && original.get("function_call") instanceof Map<?, ?> call
                && call.get("name") instanceof String name) {
            // OpenAI's legacy function calling, as a tool call with an id of its own (legacy calls carry none).
            String id = "function_call_" + index;
            legacyCalls.put(name, id);
            Map<String, Object> block = new LinkedHashMap<>();
            block.put("type", "tool_use");
            block.put("id", id);
            block.put("name", name);
            block.put("input", input(call.get("arguments"), "messages[" + index + "].function_call.arguments"));
            blocks.add(block);
        }
        if (original.get("tool_calls") instanceof List<?> calls) {
            for (int c = 0; c < calls.size(); c++) {
                if (calls.get(c) instanceof Map<?, ?> call && call.get("function") instanceof Map<?, ?> function) {
                    Map<String, Object> block = new LinkedHashMap<>();
                    block.put("type", "tool_use");
                    block.put("id", toolId(call.get("id")));
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

    private static Map<String, Object> toolResult(ChatMessage message, Map<String, Object> original,
            String toolUseId) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "tool_result");
        block.put("tool_use_id", toolUseId);
        if (original.get("content") instanceof List<?> parts) {
            // Parts stay parts (Anthropic's tool_result takes text blocks), not glued into one text.
            List<Map<String, Object>> texts = new ArrayList<>();
            for (Object part : parts) {
                if (part instanceof Map<?, ?> p && p.get("text") instanceof String t && !t.isBlank()) {
                    texts.add(text(t));
                }
            }
            block.put("content", texts);
        } else {
            block.put("content", message.text());
        }
        return block;
    }

    /** A system or developer message as text blocks: each text part its own, blank ones left out. */
    private static List<Map<String, Object>> textBlocks(ChatMessage message, Map<String, Object> original) {
        List<Map<String, Object>> blocks = new ArrayList<>();
        if (original.get("content") instanceof List<?> parts) {
            for (Object part : parts) {
                if (part instanceof Map<?, ?> p && p.get("text") instanceof String t && !t.isBlank()) {
                    blocks.add(text(t));
                }
            }
        } else if (!message.text().isBlank()) {
            blocks.add(text(message.text()));
        }
        return blocks;
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
                    translated.put("input_schema", inputSchema(function.get("parameters")));
                    tools.add(translated);
                }
            }
        }
        return tools;
    }

    /**
     * A tool's parameters as Anthropic's {@code input_schema}, which must say {@code "type": "object"}: OpenAI
     * takes {@code {}} or {@code {properties: …}} without it (an audit: sent as they were, Anthropic refused them).
     */
    private static Object inputSchema(Object parameters) {
        if (!(parameters instanceof Map<?, ?> schema)) {
            return Map.of("type", "object");
        }
        if (schema.containsKey("type")) {
            return schema;
        }
        Map<Object, Object> typed = new LinkedHashMap<>();
        typed.put("type", "object");
        typed.putAll(schema);
        return typed;
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
