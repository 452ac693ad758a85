package dev.tollgate.adapter.in.http.completions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP adapter: rebuilds complete {@code message.tool_calls} for a non-streaming answer from streamed
 * {@code delta.tool_calls} fragments — entries are keyed by {@code index}; {@code id}, {@code type} and the
 * function name arrive once, the arguments string in pieces.
 */
final class ToolCallAssembler {

    private final Map<Integer, Map<String, Object>> calls = new TreeMap<>();
    private final Map<Integer, StringBuilder> arguments = new TreeMap<>();
    private final Map<Integer, String> names = new TreeMap<>();

    void add(Object fragments) {
        if (!(fragments instanceof List<?> list)) {
            return;
        }
        for (Object item : list) {
            if (!(item instanceof Map<?, ?> fragment)) {
                continue;
            }
            int index = fragment.get("index") instanceof Number n ? n.intValue() : calls.size();
            Map<String, Object> call = calls.computeIfAbsent(index, i -> new LinkedHashMap<>());
            if (fragment.get("id") instanceof String id) {
                call.put("id", id);
            }
            call.putIfAbsent("type", fragment.get("type") instanceof String type ? type : "function");
            if (fragment.get("function") instanceof Map<?, ?> function) {
                if (function.get("name") instanceof String name) {
                    // Some providers repeat the whole name in every fragment: a repeat is not a further piece.
                    names.merge(index, name, (sofar, piece) -> sofar.equals(piece) ? sofar : sofar.concat(piece));
                }
                if (function.get("arguments") instanceof String args) {
                    arguments.computeIfAbsent(index, i -> new StringBuilder()).append(args);
                }
            }
        }
    }

    List<Map<String, Object>> toolCalls() {
        List<Map<String, Object>> result = new ArrayList<>();
        calls.forEach((index, call) -> {
            Map<String, Object> function = new LinkedHashMap<>();
            function.put("name", names.getOrDefault(index, ""));
            function.put("arguments", arguments.getOrDefault(index, new StringBuilder()).toString());
            Map<String, Object> complete = new LinkedHashMap<>(call);
            complete.put("function", function);
            result.add(complete);
        });
        return result;
    }
}
