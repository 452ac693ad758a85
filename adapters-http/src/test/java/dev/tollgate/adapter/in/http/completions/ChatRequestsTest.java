package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** §2.3: every refusal is a 400 whose param is the path of the offending field (docs/decisions.md). */
class ChatRequestsTest {

    private static final String USER = "{\"role\":\"user\",\"content\":\"hi\"}";

    private final JsonMapper json = JsonMapper.createDefault();

    private ChatRequest parse(String body) {
        return ChatRequests.parse(JsonObjectBody.parse(body.getBytes(StandardCharsets.UTF_8)), json);
    }

    private InvalidRequestException refused(String body) {
        return assertThrows(InvalidRequestException.class, () -> parse(body), body);
    }

    private static String withMessages(String... messages) {
        return "{\"model\":\"m/one\",\"messages\":[" + String.join(",", messages) + "]}";
    }

    private static String withTools(String... tools) {
        return "{\"model\":\"m/one\",\"messages\":[" + USER + "],\"tools\":[" + String.join(",", tools) + "]}";
    }

    private static String part(String part) {
        return "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"}," + part + "]}";
    }

    /** Each body, the param its refusal names and a text its message contains. */
    private void assertRefusals(Map<String, List<String>> cases) {
        for (Map.Entry<String, List<String>> c : cases.entrySet()) {
            InvalidRequestException refused = refused(c.getKey());
            assertEquals(400, refused.status(), c.getKey());
            assertEquals(c.getValue().get(0), refused.param(), c.getKey() + " -> " + refused.getMessage());
            assertTrue(refused.getMessage().contains(c.getValue().get(1)), c.getKey() + " -> " + refused.getMessage());
        }
    }

    @Test
    void aToolDeclarationsRefusalNamesTheFieldWithinIt() {
        String f = "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}";
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put(withTools("5"), List.of("tools[0]", "tools[0] must be {type: \"function\""));
        cases.put(withTools("{\"type\":\"retrieval\",\"function\":{\"name\":\"f\"}}"),
                List.of("tools[0].type", "tools[0].type must be \"function\""));
        cases.put(withTools("{\"function\":{\"name\":\"f\"}}"), List.of("tools[0].type", "must be \"function\""));
        cases.put(withTools(f, "{\"type\":\"function\",\"function\":\"g\"}"),
                List.of("tools[1].function", "tools[1].function must be an object"));
        cases.put(withTools("{\"type\":\"function\",\"function\":{}}"),
                List.of("tools[0].function.name", "tools[0].function.name is required"));
        cases.put(withTools("{\"type\":\"function\",\"function\":{\"name\":\"a b\"}}"),
                List.of("tools[0].function.name", "got 'a b'"));
        cases.put(withTools(f, f), List.of("tools[1].function.name", "tools[1] declares the function 'f' again"));
        cases.put(withTools(f, "{\"type\":\"function\",\"function\":{\"name\":\"g\",\"parameters\":\"x\"}}"),
                List.of("tools[1].function.parameters", "tools[1].function.parameters must be a JSON Schema"));
        cases.put(withTools("{\"type\":\"function\",\"function\":{\"name\":\"g\",\"description\":5}}"),
                List.of("tools[0].function.description", "must be a string"));
        cases.put(withTools("{\"type\":\"function\",\"function\":{\"name\":\"g\",\"strict\":\"yes\"}}"),
                List.of("tools[0].function.strict", "must be a boolean"));
        cases.put("{\"model\":\"m/one\",\"messages\":[" + USER + "],\"tools\":{}}", List.of("tools", "an array"));
        assertRefusals(cases);
    }

    /** A schema name sent but malformed is said to be malformed, not missing (an audit: "is required" for "bad name!"). */
    @Test
    void aJsonSchemaNameIsRequiredWhenMissingAndShownWhenMalformed() {
        String format = "{\"model\":\"m/one\",\"messages\":[" + USER + "],\"response_format\":{\"type\":\"json_schema\","
                + "\"json_schema\":";
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put(format + "{}}}", List.of("response_format.json_schema.name", "json_schema.name is required"));
        cases.put(format + "{\"name\":5}}}", List.of("response_format.json_schema.name", "is required"));
        cases.put(format + "{\"name\":\"bad name!\"}}}",
                List.of("response_format.json_schema.name", "must be 1 to 64 letters, digits, underscores or dashes, "
                        + "got 'bad name!'"));
        assertRefusals(cases);
    }

    @Test
    void aContentPartsRefusalNamesThePartAndItsField() {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put(withMessages(part("\"look\"")), List.of("messages[0].content[1]",
                "messages[0].content[1] must be an object with a type"));
        cases.put(withMessages(part("{\"text\":\"x\"}")), List.of("messages[0].content[1].type",
                "messages[0].content[1].type is required"));
        cases.put(withMessages(USER, part("{\"type\":\"text\",\"text\":5}")), List.of("messages[1].content[1].text",
                "messages[1].content[1].text must be a string"));
        cases.put(withMessages(part("{\"type\":\"image_url\"}")), List.of("messages[0].content[1].image_url",
                "messages[0].content[1].image_url must be an object"));
        cases.put(withMessages(part("{\"type\":\"image_url\",\"image_url\":{\"detail\":\"low\"}}")),
                List.of("messages[0].content[1].image_url.url", "messages[0].content[1].image_url.url must be a"));
        // An audit (2026-11-29): an empty URL and a detail OpenAI does not know went to the provider as written.
        cases.put(withMessages(part("{\"type\":\"image_url\",\"image_url\":{\"url\":\" \"}}")),
                List.of("messages[0].content[1].image_url.url", "must be a non-empty string"));
        for (String detail : List.of("\"ultra\"", "1", "{\"x\":1}", "\"LOW\"")) {
            cases.put(withMessages(part("{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/y.png\","
                    + "\"detail\":" + detail + "}}")), List.of("messages[0].content[1].image_url.detail",
                    "messages[0].content[1].image_url.detail must be \"auto\", \"low\" or \"high\""));
        }
        cases.put(withMessages(part("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"AAAA\"}}")),
                List.of("messages[0].content[1].type", "messages[0].content[1] is a part of type 'input_audio', "
                        + "which this gateway does not take"));
        cases.put(withMessages(USER, "{\"role\":\"assistant\",\"content\":[{\"type\":\"refusal\",\"refusal\":7}]}"),
                List.of("messages[1].content[0].refusal", "messages[1].content[0].refusal must be a string"));
        assertRefusals(cases);
    }

    @Test
    void anEmptyArrayOfPartsIsRefusedNotSentAsAnEmptyPrompt() {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put(withMessages("{\"role\":\"user\",\"content\":[]}"),
                List.of("messages[0].content", "messages[0].content must not be an empty array"));
        cases.put(withMessages(USER, "{\"role\":\"assistant\",\"content\":[],\"tool_calls\":[{\"id\":\"c1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}"),
                List.of("messages[1].content", "must not be an empty array"));
        cases.put(withMessages("{\"role\":\"system\",\"content\":[]}", USER),
                List.of("messages[0].content", "must not be an empty array"));
        assertRefusals(cases);
    }

    @Test
    void eachRoleCarriesOnlyThePartTypesOpenAiAllowsIt() {
        String image = "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.test/a.png\"}}";
        String refusal = "{\"type\":\"refusal\",\"refusal\":\"I cannot\"}";
        Map<String, List<String>> cases = new LinkedHashMap<>();
        for (String role : List.of("system", "developer")) {
            cases.put(withMessages("{\"role\":\"" + role + "\",\"content\":[" + image + "]}", USER),
                    List.of("messages[0].content[0].type", "messages[0].content[0] is a part of type 'image_url', "
                            + "which only user messages carry: " + role + " message parts must be text"));
        }
        cases.put(withMessages(USER, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + image + "]}"), List.of("messages[1].content[1].type",
                "which only user messages carry: assistant message parts must be text or refusal"));
        cases.put(withMessages(USER, "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[" + image + "]}"),
                List.of("messages[1].content[0].type", "tool message parts must be text"));
        cases.put(withMessages(USER, "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[{\"type\":\"file\"}]}"),
                List.of("messages[1].content[0].type", "part of type 'file', which only user messages carry"));
        cases.put(withMessages("{\"role\":\"user\",\"content\":[" + refusal + "]}"),
                List.of("messages[0].content[0].type", "messages[0].content[0] is a part of type 'refusal', which "
                        + "only assistant messages carry: user message parts must be text or image_url"));
        cases.put(withMessages("{\"role\":\"system\",\"content\":[" + refusal + "]}", USER),
                List.of("messages[0].content[0].type", "only assistant messages carry: system message parts must "
                        + "be text"));
        cases.put(withMessages("{\"role\":\"developer\",\"content\":[{\"type\":\"video\"}]}", USER),
                List.of("messages[0].content[0].type", "messages[0].content[0] is a part of type 'video': developer "
                        + "message parts must be text"));
        assertRefusals(cases);

        // What each role may carry is accepted: the text parts joined, the images counted.
        ChatRequest request = parse(withMessages(
                "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"be brief\"}]}",
                "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is \"},"
                        + "{\"type\":\"text\",\"text\":\"this?\"}," + image + "]}",
                "{\"role\":\"assistant\",\"content\":[" + refusal + "]}",
                "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"42\"}]}"));
        assertEquals(List.of("be brief", "what is this?", "I cannot", "42"),
                request.messages().stream().map(m -> m.text()).toList());
        assertEquals(1, request.images());
        for (String detail : List.of("\"auto\"", "\"low\"", "\"high\"", "null")) {
            assertEquals(1, parse(withMessages("{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                    + "{\"url\":\"data:image/png;base64,AAAA\",\"detail\":" + detail + "}}]}")).images(), detail);
        }
    }

    @Test
    void nOtherThanOneSaysThatOnlyOneIsTaken() {
        String messages = "\"model\":\"m/one\",\"messages\":[" + USER + "]";
        for (String n : List.of("0", "2", "-1", "1.5", "99999999999")) {
            InvalidRequestException refused = refused("{" + messages + ",\"n\":" + n + "}");
            assertEquals("n", refused.param());
            assertEquals("n must be 1 (one choice per request), got " + n, refused.getMessage());
        }
        assertEquals("n", refused("{" + messages + ",\"n\":\"1\"}").param());
        parse("{" + messages + ",\"n\":1}");
        parse("{" + messages + ",\"n\":null}");
    }

    @Test
    void aToolCallIdOfTheWrongTypeIsSaidToBeOneRatherThanMissing() {
        InvalidRequestException number = refused(withMessages(USER, "{\"role\":\"tool\",\"tool_call_id\":5,"
                + "\"content\":\"42\"}"));
        assertEquals("messages[1].tool_call_id", number.param());
        assertTrue(number.getMessage().startsWith("messages[1].tool_call_id must be a non-empty string"),
                number.getMessage());
        assertTrue(number.getMessage().endsWith("got a number"), number.getMessage());

        InvalidRequestException empty = refused(withMessages(USER, "{\"role\":\"tool\",\"tool_call_id\":\"\","
                + "\"content\":\"42\"}"));
        assertEquals("messages[1].tool_call_id", empty.param());
        assertTrue(empty.getMessage().endsWith("got an empty string"), empty.getMessage());

        for (String missing : List.of("{\"role\":\"tool\",\"content\":\"42\"}",
                "{\"role\":\"tool\",\"tool_call_id\":null,\"content\":\"42\"}")) {
            InvalidRequestException refused = refused(withMessages(USER, missing));
            assertEquals("messages[1].tool_call_id", refused.param());
            assertTrue(refused.getMessage().contains("tool_call_id is required on a tool message"),
                    refused.getMessage());
        }
    }

    @Test
    void theRequestRecordsWhichFieldCarriedTheOutputBound() {
        String messages = "\"model\":\"m/one\",\"messages\":[" + USER + "]";
        ChatRequest completion = parse("{" + messages + ",\"max_completion_tokens\":30}");
        assertEquals(30, completion.maxTokens());
        assertEquals("max_completion_tokens", completion.maxTokensField());

        ChatRequest both = parse("{" + messages + ",\"max_tokens\":20,\"max_completion_tokens\":30}");
        assertEquals(20, both.maxTokens(), "max_tokens wins when both are sent");
        assertEquals("max_tokens", both.maxTokensField());

        assertEquals("max_tokens", parse("{" + messages + ",\"max_tokens\":20}").maxTokensField());
        assertEquals("max_tokens", parse("{" + messages + "}").maxTokensField(), "no bound: the usual name");
        assertEquals("max_completion_tokens",
                refused("{" + messages + ",\"max_completion_tokens\":0}").param());
    }

    @Test
    void anIntegerFieldOfAnotherTypeSaysAnIntegerIsWanted() {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        String base = "{\"model\":\"m/one\",\"messages\":[" + USER + "],";
        cases.put(base + "\"max_tokens\":\"5\"}", List.of("max_tokens", "'max_tokens' must be an integer, got a string"));
        cases.put(base + "\"n\":true}", List.of("n", "'n' must be an integer, got a boolean"));
        cases.put(base + "\"seed\":[1]}", List.of("seed", "'seed' must be an integer, got an array"));
        cases.put(base + "\"top_logprobs\":{}}", List.of("top_logprobs", "'top_logprobs' must be an integer, got an object"));
        // no made-up upper bound for the token limits: the model's output cap is checked with the model
        cases.put(base + "\"max_tokens\":0}", List.of("max_tokens", "max_tokens must be an integer of at least 1, got 0"));
        cases.put(base + "\"max_completion_tokens\":1.5}",
                List.of("max_completion_tokens", "must be an integer of at least 1, got 1.5"));
        cases.put(base + "\"max_tokens\":1e12}", List.of("max_tokens", "(larger than any model's output limit)"));
        cases.put(base + "\"top_logprobs\":21}", List.of("top_logprobs", "must be an integer from 0 to 20, got 21"));
        assertRefusals(cases);
    }

    @Test
    void aFieldTwiceInANestedObjectIsNamedByItsPath() {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put("{\"model\":\"m/one\",\"messages\":[" + USER + "],\"stream\":true,\"stream_options\":"
                + "{\"include_usage\":true,\"include_usage\":false}}",
                List.of("stream_options.include_usage", "'stream_options.include_usage' appears more than once"));
        cases.put(withMessages("{\"role\":\"user\",\"content\":\"a\",\"content\":\"b\"}"),
                List.of("messages[0].content", "'messages[0].content' appears more than once"));
        cases.put(withMessages(USER, part("{\"type\":\"text\",\"text\":\"x\",\"text\":\"y\"}")),
                List.of("messages[1].content[1].text", "appears more than once"));
        cases.put("{\"model\":\"m/one\",\"model\":\"m/two\"}", List.of("model", "'model' appears more than once"));
        assertRefusals(cases);
    }
}
