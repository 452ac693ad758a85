package dev.tollgate.adapter.out.upstream.simulator;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Simulator support: the tool call a model answers with when the request offers tools — to the function
 * {@code tool_choice} names, else to the first one the last user message mentions by name, else to the first — with
 * arguments that are an instance of the function's {@code parameters} schema ({@link JsonAnswer#arguments}). None
 * when {@code tool_choice} is {@code "none"} or the last message is a tool's result: the model then answers in text,
 * so that a client's tool loop (the OpenAI SDK's {@code runTools}) ends.
 */
record ToolCallAnswer(String id, String name, String arguments) {

    /** The call to answer {@code request} with, or null when the answer is text. */
    static ToolCallAnswer of(ChatRequest request, int seed) {
        if (request.toolsJson() == null || request.messages().isEmpty()) {
            return null;
        }
        String lastRole = request.messages().get(request.messages().size() - 1).role();
        if ("tool".equals(lastRole) || "function".equals(lastRole)) {
            return null;
        }
        Object tools;
        Object choice;
        try {
            tools = JsonAnswer.read(request.toolsJson());
            choice = request.toolChoiceJson() == null ? null : JsonAnswer.read(request.toolChoiceJson());
        } catch (IOException | RuntimeException e) {
            return null; // the HTTP adapter checked both; text rather than nothing if they ever are not JSON
        }
        if ("none".equals(choice)) {
            return null;
        }
        Map<String, Map<?, ?>> functions = new LinkedHashMap<>();
        if (tools instanceof List<?> list) {
            for (Object tool : list) {
                if (tool instanceof Map<?, ?> entry && entry.get("function") instanceof Map<?, ?> function
                        && function.get("name") instanceof String name) {
                    functions.putIfAbsent(name, function);
                }
            }
        }
        if (functions.isEmpty()) {
            return null;
        }
        String name = chosen(choice, functions, request.messages());
        Map<?, ?> function = functions.getOrDefault(name, Map.of());
        String arguments = JsonAnswer.arguments(function.get("parameters"), seed,
                Boolean.TRUE.equals(function.get("strict")));
        String hex = UUID.nameUUIDFromBytes((request.promptText() + '\0' + name).getBytes(StandardCharsets.UTF_8))
                .toString().replace("-", "").substring(0, 24);
        return new ToolCallAnswer("call_" + hex, name, arguments);
    }

    private static String chosen(Object choice, Map<String, Map<?, ?>> functions, List<ChatMessage> messages) {
        if (choice instanceof Map<?, ?> named && named.get("function") instanceof Map<?, ?> function
                && function.get("name") instanceof String name) {
            return name;
        }
        for (int i = messages.size() - 1; i >= 0; i--) {
            if ("user".equals(messages.get(i).role())) {
                String said = messages.get(i).text();
                for (String name : functions.keySet()) {
                    if (said.contains(name)) {
                        return name;
                    }
                }
                break;
            }
        }
        return functions.keySet().iterator().next();
    }

    /**
     * The call as the chunks' {@code delta.tool_calls} arrays stream it, each one token: first the call's index, id,
     * type and name with empty arguments, then the arguments in pieces ({@link JsonAnswer#pieces}), as OpenAI does.
     */
    List<String> deltas() {
        List<String> pieces = JsonAnswer.pieces(arguments);
        String header = "[{\"index\":0,\"id\":\"" + quoted(id) + "\",\"type\":\"function\",\"function\":{\"name\":\""
                + quoted(name) + "\",\"arguments\":\"\"}}]";
        return new AbstractList<>() {
            @Override
            public String get(int n) {
                // built when emitted: the arguments of a large schema cost their pieces once, not twice
                return n == 0 ? header
                        : "[{\"index\":0,\"function\":{\"arguments\":\"" + quoted(pieces.get(n - 1)) + "\"}}]";
            }

            @Override
            public int size() {
                return pieces.size() + 1;
            }
        };
    }

    /** The text as the inside of a JSON string literal. */
    static String quoted(String text) {
        return new String(JsonStringEncoder.getInstance().quoteAsString(text));
    }
}
