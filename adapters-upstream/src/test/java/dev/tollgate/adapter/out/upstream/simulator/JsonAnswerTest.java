package dev.tollgate.adapter.out.upstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonAnswerTest {

    /** Prompts (as their hashes) to answer each schema for: values are picked by the prompt, so try several. */
    private static final int PROMPTS = 40;

    private static String format(String schema, boolean strict) {
        return "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"answer\",\"strict\":" + strict + ",\"schema\":"
                + schema + "}}";
    }

    /** Answers the schema for many prompts, asserts each answer validates, and returns the first one, parsed. */
    private static Map<?, ?> validAnswers(String schema, boolean strict) throws IOException {
        Map<?, ?> first = null;
        for (int seed = 0; seed < PROMPTS; seed++) {
            String answer = JsonAnswer.answer(format(schema, strict), seed * 7919, "unused");
            assertNotNull(answer);
            assertEquals(List.of(), SchemaSubsetValidator.violations(schema, answer), answer);
            assertEquals(answer, JsonAnswer.answer(format(schema, strict), seed * 7919, "unused"), "deterministic");
            if (first == null) {
                first = assertInstanceOf(Map.class, SchemaSubsetValidator.parse(answer));
            }
        }
        return first;
    }

    @Test
    void jsonObjectIsAnObjectCarryingTheText() throws IOException {
        String answer = JsonAnswer.answer("{\"type\":\"json_object\"}", 42, "hello \"gateway\"");
        assertEquals(Map.of("answer", "hello \"gateway\""), SchemaSubsetValidator.parse(answer));
        assertEquals(answer, JsonAnswer.answer("{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"n\"}}", 42,
                "hello \"gateway\""), "json_schema without a schema: any object will do");
        assertEquals(answer, JsonAnswer.answer("{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"n\","
                + "\"schema\":null}}", 42, "hello \"gateway\""), "a null schema is no schema");
    }

    @Test
    void noJsonUnlessTheFormatAsksForIt() {
        assertNull(JsonAnswer.answer(null, 1, "text"));
        assertNull(JsonAnswer.answer("{\"type\":\"text\"}", 1, "text"));
        assertNull(JsonAnswer.answer("not json", 1, "text"));
    }

    @Test
    void nestedObjectsInStrictModeHaveEveryProperty() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "title":{"type":"string"},
                  "author":{"type":"object","properties":{
                    "name":{"type":"string"},
                    "born":{"type":"integer","minimum":1800,"maximum":2000},
                    "alive":{"type":"boolean"}},
                    "required":["name","born"],"additionalProperties":false},
                  "summary":{"type":"string","description":"not required, but strict mode fills it"}},
                 "required":["title","author"],"additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertEquals(Set.of("title", "author", "summary"), answer.keySet());
        assertEquals(Set.of("name", "born", "alive"), ((Map<?, ?>) answer.get("author")).keySet());
    }

    @Test
    void arraysHaveTheirMinimumOfItemsElseOne() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "tags":{"type":"array","items":{"type":"string","minLength":3,"maxLength":12},"minItems":3,
                          "maxItems":5},
                  "matrix":{"type":"array","items":{"type":"array","items":{"type":"integer"},"minItems":2},
                            "minItems":2},
                  "flags":{"type":"array","items":{"type":"boolean"}},
                  "none":{"type":"array","items":{"type":"string"},"maxItems":0},
                  "pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2}},
                 "required":["tags","matrix","flags","none","pair"],"additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertEquals(3, ((List<?>) answer.get("tags")).size());
        assertEquals(2, ((List<?>) answer.get("matrix")).size());
        assertEquals(1, ((List<?>) answer.get("flags")).size());
        assertEquals(List.of(), answer.get("none"));
    }

    @Test
    void enumsAnswerTheirFirstValueAndConstsThemselves() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "color":{"type":"string","enum":["red","green","blue"]},
                  "version":{"const":2},
                  "mode":{"enum":[null,"x"]},
                  "shape":{"const":{"kind":"circle","r":[1.5]}}},
                 "required":["color","version","mode","shape"],"additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertEquals("red", answer.get("color"));
        assertTrue(answer.containsKey("mode"));
        assertNull(answer.get("mode"));
    }

    @Test
    void anyOfAndOneOfTakeTheirFirstBranch() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "id":{"anyOf":[{"type":"integer","minimum":1},{"type":"string"}]},
                  "shape":{"oneOf":[
                    {"type":"object","properties":{"kind":{"const":"circle"},
                      "radius":{"type":"number","exclusiveMinimum":0}},
                     "required":["kind","radius"],"additionalProperties":false},
                    {"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},
                     "required":["kind","side"],"additionalProperties":false}]},
                  "either":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
                            "anyOf":[{"required":["a"]},{"required":["b"]}]},
                  "both":{"allOf":[{"$ref":"#/$defs/named"},
                                   {"properties":{"size":{"type":"integer","minimum":0}},"required":["size"]}]}},
                 "required":["id","shape","either","both"],
                 "$defs":{"named":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}""";
        Map<?, ?> answer = validAnswers(schema, false);
        assertInstanceOf(Number.class, answer.get("id"));
        assertEquals("circle", ((Map<?, ?>) answer.get("shape")).get("kind"));
    }

    @Test
    void referencesAreFollowedAndRecursionEnds() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "home":{"$ref":"#/$defs/address"},
                  "work":{"$ref":"#/definitions/address"},
                  "tree":{"$ref":"#/$defs/node"},
                  "list":{"$ref":"#/$defs/link"}},
                 "required":["home","work","tree","list"],"additionalProperties":false,
                 "$defs":{
                   "address":{"type":"object","properties":{"street":{"type":"string"},
                     "zip":{"type":"string","minLength":5,"maxLength":5}},
                     "required":["street","zip"],"additionalProperties":false},
                   "node":{"type":"object","properties":{"label":{"type":"string"},
                     "children":{"type":"array","items":{"$ref":"#/$defs/node"}}},
                     "required":["label","children"],"additionalProperties":false},
                   "link":{"type":"object","properties":{"value":{"type":"integer"},
                     "next":{"anyOf":[{"$ref":"#/$defs/link"},{"type":"null"}]}},
                     "required":["value","next"],"additionalProperties":false}},
                 "definitions":{"address":{"$ref":"#/$defs/address"}}}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertEquals(5, ((String) ((Map<?, ?>) answer.get("home")).get("zip")).length());
        assertFalse(((List<?>) ((Map<?, ?>) answer.get("tree")).get("children")).isEmpty(),
                "the first level is filled in; deeper ones end the recursion");

        String selfReferencing = """
                {"type":"object","properties":{"name":{"type":"string"},
                  "parent":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},
                 "required":["name","parent"],"additionalProperties":false}""";
        validAnswers(selfReferencing, true);
    }

    @Test
    void nullableTypesAnswerTheirOtherType() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "nickname":{"type":["string","null"]},
                  "age":{"type":["null","integer"],"minimum":0,"maximum":130},
                  "nothing":{"type":"null"}},
                 "required":["nickname","age","nothing"],"additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertInstanceOf(String.class, answer.get("nickname"));
        assertInstanceOf(Number.class, answer.get("age"));
    }

    @Test
    void numbersLieWithinTheirBounds() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "percent":{"type":"number","minimum":0,"maximum":1},
                  "open":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
                  "draft4":{"type":"integer","minimum":10,"exclusiveMinimum":true,"maximum":11},
                  "negative":{"type":"integer","maximum":-1000},
                  "huge":{"type":"integer","minimum":10000000000000000000000},
                  "step":{"type":"number","minimum":0.1,"maximum":0.35,"multipleOf":0.05},
                  "even":{"type":"integer","minimum":3,"maximum":9,"multipleOf":2},
                  "price":{"type":"number","minimum":9.99,"maximum":10.01},
                  "tiny":{"type":"number","exclusiveMinimum":0.001,"exclusiveMaximum":0.002},
                  "any":{"type":"number"}},
                 "required":["percent","open","draft4","negative","huge","step","even","price","tiny","any"],
                 "additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertEquals(11, ((Number) answer.get("draft4")).intValue());
        Set<String> evens = new HashSet<>();
        for (int seed = 0; seed < PROMPTS; seed++) {
            Map<?, ?> other = (Map<?, ?>) SchemaSubsetValidator.parse(JsonAnswer.answer(format(schema, true), seed,
                    ""));
            evens.add(String.valueOf(other.get("even")));
        }
        assertTrue(evens.size() > 1, "values vary with the prompt within the range: " + evens);
    }

    @Test
    void wideBoundsGiveSmallNumbersAsAModelWould() throws IOException {
        // zod's z.number().int() bounds an integer by ±(2^53 - 1)
        String schema = """
                {"type":"object","properties":{
                  "count":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991},
                  "above":{"type":"integer","minimum":5000,"maximum":9007199254740991},
                  "below":{"type":"number","exclusiveMaximum":-7,"minimum":-1e30}},
                 "required":["count","above","below"],"additionalProperties":false}""";
        for (int seed = 0; seed < PROMPTS; seed++) {
            Map<?, ?> answer = (Map<?, ?>) SchemaSubsetValidator.parse(JsonAnswer.answer(format(schema, true), seed,
                    ""));
            long count = ((Number) answer.get("count")).longValue();
            long above = ((Number) answer.get("above")).longValue();
            java.math.BigDecimal below = new java.math.BigDecimal(answer.get("below").toString());
            assertTrue(count >= 0 && count <= 100, "count " + count);
            assertTrue(above >= 5000 && above <= 5100, "above " + above);
            assertTrue(below.compareTo(java.math.BigDecimal.valueOf(-107)) >= 0
                    && below.compareTo(java.math.BigDecimal.valueOf(-7)) < 0, "below " + below);
        }
        validAnswers(schema, true);
    }

    @Test
    void stringsHaveTheirLengthsAndFormats() throws IOException {
        String schema = """
                {"type":"object","properties":{
                  "at":{"type":"string","format":"date-time"},
                  "day":{"type":"string","format":"date"},
                  "mail":{"type":"string","format":"email"},
                  "id":{"type":"string","format":"uuid"},
                  "other":{"type":"string","format":"uuid"},
                  "long":{"type":"string","minLength":40},
                  "short":{"type":"string","maxLength":4},
                  "one":{"type":"string","minLength":1,"maxLength":1},
                  "empty":{"type":"string","maxLength":0}},
                 "required":["at","day","mail","id","other","long","short","one","empty"],
                 "additionalProperties":false}""";
        Map<?, ?> answer = validAnswers(schema, true);
        assertNotEquals(answer.get("id"), answer.get("other"), "two ids, two uuids");
    }

    @Test
    void nonStrictOptionalPropertiesAreFilledTooAndRequiredOnesAlways() throws IOException {
        String schema = """
                {"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},
                 "required":["b","c"]}""";
        Map<?, ?> answer = validAnswers(schema, false);
        assertEquals(Set.of("a", "b", "c"), answer.keySet(), "c is required though not declared");
    }

    @Test
    void anySchemaGetsAnAnswerQuickly() {
        List<String> odd = List.of("{}", "true", "false", "\"x\"", "{\"type\":\"unknown\"}", "{\"type\":[]}",
                "{\"type\":[\"null\"]}", "{\"$ref\":\"#/nope\"}", "{\"$ref\":\"#\"}", "{\"$ref\":\"#/$defs/a/0\"}",
                "{\"$ref\":\"https://example.com/s.json\"}", "{\"anyOf\":[]}", "{\"anyOf\":[{\"$ref\":\"#\"}]}",
                "{\"allOf\":[{\"$ref\":\"#\"}]}", "{\"oneOf\":[1,2]}", "{\"properties\":\"oops\",\"required\":\"x\"}",
                "{\"type\":\"object\",\"properties\":{\"me\":{\"$ref\":\"#\"}},\"required\":[\"me\"]}",
                // Branching recursion where every branch is required: no finite instance, 3^48 values to depth 48.
                "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#\"},\"b\":{\"$ref\":\"#\"},"
                        + "\"c\":{\"$ref\":\"#\"}},\"required\":[\"a\",\"b\",\"c\"]}",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#\"},\"b\":{\"$ref\":\"#\"}},"
                        + "\"required\":[\"a\",\"b\"]}",
                "{\"type\":\"array\",\"minItems\":2,\"items\":{\"$ref\":\"#\"}}",
                "{\"type\":\"object\",\"required\":[\"a\",\"b\"],\"additionalProperties\":{\"$ref\":\"#\"}}",
                "{\"type\":\"object\",\"minProperties\":4,\"additionalProperties\":{\"$ref\":\"#\"}}",
                "{\"type\":\"array\",\"minItems\":1000000000,\"items\":{\"type\":\"array\",\"minItems\":1e9}}",
                "{\"type\":\"array\",\"minItems\":100000,\"items\":{\"type\":\"string\",\"minLength\":100000}}",
                "{\"type\":\"string\",\"minLength\":1e12,\"maxLength\":-1}",
                "{\"type\":\"integer\",\"minimum\":5,\"maximum\":1}", "{\"type\":\"number\",\"multipleOf\":-3}",
                "{\"type\":\"integer\",\"multipleOf\":0.3,\"minimum\":1e300}", "{\"items\":[{\"type\":\"integer\"}]}",
                "{\"type\":\"object\",\"minProperties\":3,\"additionalProperties\":{\"type\":\"integer\"}}",
                "{\"type\":\"string\",\"format\":\"made-up\",\"pattern\":\"^[0-9]+$\",\"not\":{}}");
        for (String schema : odd) {
            String answer = assertTimeoutPreemptively(Duration.ofSeconds(5),
                    () -> JsonAnswer.answer(format(schema, true), 3, "text"), schema);
            assertNotNull(answer, schema);
            assertTrue(answer.length() < 2_000_000, schema + " gives " + answer.length() + " characters");
            try {
                SchemaSubsetValidator.parse(answer);
                // Tool arguments are built from the same schemas (a function's parameters).
                Object parameters = SchemaSubsetValidator.parse(schema);
                String arguments = assertTimeoutPreemptively(Duration.ofSeconds(5),
                        () -> JsonAnswer.arguments(parameters, 3, true), schema);
                assertTrue(arguments.length() < 2_000_000, schema + " gives " + arguments.length() + " characters");
                SchemaSubsetValidator.parse(arguments);
            } catch (IOException e) {
                throw new AssertionError(schema + " gives no JSON: " + answer, e);
            }
        }
    }

    @Test
    void piecesJoinToTheWholeAndLookLikeTokens() {
        String json = "{\"name\":\"hello gateway\",\"n\":-12.5,\"emoji\":\"\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00"
                + "\uD83D\uDE00\uD83D\uDE00\",\"long\":\"abcdefghijklmnopqrstuvwxyz\"}";
        List<String> pieces = JsonAnswer.pieces(json);
        assertEquals(json, String.join("", pieces));
        assertEquals(List.of("{\"", "name", "\":\"", "hello", " gateway", "\",\""), pieces.subList(0, 6));
        for (String piece : pieces) {
            assertFalse(piece.isEmpty());
            assertTrue(piece.length() <= 9, piece);
            assertFalse(Character.isHighSurrogate(piece.charAt(piece.length() - 1)), "a pair is never split");
        }
        assertEquals(List.of(), JsonAnswer.pieces(""));
    }

    @Test
    void theValidatorRejectsWhatTheSchemaForbids() throws IOException {
        String schema = """
                {"type":"object","properties":{"n":{"type":"integer","minimum":1,"exclusiveMaximum":5},
                  "s":{"type":"string","format":"uuid"},"e":{"enum":["a"]},"r":{"$ref":"#/$defs/x"}},
                 "required":["n"],"additionalProperties":false,"$defs":{"x":{"type":"array","minItems":2}}}""";
        assertEquals(List.of(), SchemaSubsetValidator.violations(schema, "{\"n\":4,\"r\":[1,2]}"));
        assertEquals(6, SchemaSubsetValidator.violations(schema,
                "{\"n\":5,\"s\":\"x\",\"e\":\"b\",\"r\":[1],\"extra\":1,\"n2\":1}").size());
        assertEquals(1, SchemaSubsetValidator.violations(schema, "{}").size());
        assertEquals(1, SchemaSubsetValidator.violations(schema, "{\"n\":1.5}").size());
    }
}
