package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolCallAssemblerTest {

    private static Map<String, Object> piece(int index, String name, String arguments) {
        return name == null ? Map.of("index", index, "function", Map.of("arguments", arguments))
                : Map.of("index", index, "id", "call_" + index, "type", "function",
                        "function", Map.of("name", name, "arguments", arguments));
    }

    @Test
    void piecesJoinIntoWholeCallsByIndex() {
        ToolCallAssembler calls = new ToolCallAssembler();
        calls.add(List.of(piece(0, "get_weather", ""), piece(1, "get_time", "{}")));
        calls.add(List.of(piece(0, null, "{\"city\":"), piece(0, null, "\"Rome\"}")));

        List<Map<String, Object>> whole = calls.toolCalls();
        assertEquals(Map.of("name", "get_weather", "arguments", "{\"city\":\"Rome\"}"), whole.get(0).get("function"));
        assertEquals("call_0", whole.get(0).get("id"));
        assertEquals(Map.of("name", "get_time", "arguments", "{}"), whole.get(1).get("function"));
    }

    @Test
    void aNameRepeatedInEveryPieceIsNotDoubled() {
        ToolCallAssembler calls = new ToolCallAssembler();
        calls.add(List.of(piece(0, "get_weather", "{\"city\":")));
        calls.add(List.of(piece(0, "get_weather", "\"Rome\"}")));

        assertEquals(Map.of("name", "get_weather", "arguments", "{\"city\":\"Rome\"}"),
                calls.toolCalls().get(0).get("function"));
    }
}
