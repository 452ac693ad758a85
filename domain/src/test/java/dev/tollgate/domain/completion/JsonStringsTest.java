package dev.tollgate.domain.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonStringsTest {

    private static final Set<String> TOOL_CALL = Set.of("name", "arguments");

    @Test
    void memberValuesAreTheDecodedStringsOfTheNamedMembersAtAnyDepth() {
        String delta = "[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"arguments\":\"{\\\"city\\\": \\\"Z\\u00fcrich\\\"}\"}}]";
        assertEquals("get_weather{\"city\": \"Zürich\"}", JsonStrings.memberValues(delta, TOOL_CALL));
    }

    @Test
    void aMemberNameAsAValueOrANonStringValueIsNotTaken() {
        assertEquals("", JsonStrings.memberValues("{\"type\":\"name\",\"name\":7,\"x\":\"arguments\"}", TOOL_CALL));
        assertEquals("b", JsonStrings.memberValues("{\"name\" : \"b\", \"list\":[\"name\"]}", TOOL_CALL));
        assertEquals("", JsonStrings.memberValues("{\"name\":{\"inner\":\"c\"}}", TOOL_CALL));
    }

    @Test
    void brokenJsonIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> JsonStrings.memberValues("{\"name\":\"open", TOOL_CALL));
    }

    @Test
    void mapLiteralsStillRewritesEveryLiteral() {
        assertEquals("{\"A\":[\"B\",1]}", JsonStrings.mapLiterals("{\"a\":[\"b\",1]}", String::toUpperCase));
    }
}
