package dev.tollgate.adapter.out.upstream.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** One chunk of an OpenAI-compatible stream, read in one pass: what the gateway uses, nothing else. */
class OpenAiChunkTest {

    @Test
    void aContentDeltaOfTheFirstChoice() throws IOException {
        OpenAiChunk chunk = OpenAiChunk.read("{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                + "\"model\":\"m\",\"system_fingerprint\":null,\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                + "\"assistant\",\"content\":\"Hel\\u00e9lo \\\"x\\\"\"},\"logprobs\":{\"content\":[{\"token\":\"a\","
                + "\"logprob\":-0.1,\"top_logprobs\":[]}]},\"finish_reason\":null},{\"index\":1,\"delta\":{\"content\":"
                + "\"second\"},\"finish_reason\":\"stop\"}]}");
        assertEquals("Hel\u00e9lo \"x\"", chunk.content());
        assertNull(chunk.finishReason(), "the second choice is not read");
        assertNull(chunk.toolCallsJson());
        assertNull(chunk.error());
        assertFalse(chunk.hasUsage());
        assertEquals("[{\"token\":\"a\",\"logprob\":-0.1,\"top_logprobs\":[]}]", chunk.logprobsJson(),
                "the first choice's log probabilities, as sent");
    }

    @Test
    void anErrorThatSaysRateLimitedIsCapacity() throws IOException {
        for (String error : new String[] {"{\"message\":\"slow down\",\"code\":429}",
                "{\"message\":\"slow down\",\"code\":\"rate_limit_exceeded\"}",
                "{\"message\":\"slow down\",\"type\":\"RateLimitError\"}",
                // An overload is capacity too (an audit: retried as a server error, then a 502).
                "{\"message\":\"slow down\",\"type\":\"overloaded_error\"}",
                "{\"message\":\"slow down\",\"code\":\"overloaded\"}", "{\"message\":\"slow down\",\"code\":529}"}) {
            OpenAiChunk chunk = OpenAiChunk.read("{\"error\":" + error + "}");
            assertEquals("slow down", chunk.error());
            assertTrue(chunk.rateLimited(), error);
        }
        assertFalse(OpenAiChunk.read("{\"error\":{\"message\":\"boom\",\"code\":502}}").rateLimited());
    }

    @Test
    void choicesOtherThanTheFirstAreNotMixedIntoTheAnswer() throws IOException {
        OpenAiChunk other = OpenAiChunk.read("{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"B1\"},"
                + "\"finish_reason\":\"stop\"}]}");
        assertNull(other.content());
        assertNull(other.finishReason());
        OpenAiChunk both = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"content\":\"A\"}},{\"index\":1,"
                + "\"delta\":{\"content\":\"B\"}}]}");
        assertEquals("A", both.content(), "no index is the first choice");
        OpenAiChunk later = OpenAiChunk.read("{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"B\"}},"
                + "{\"delta\":{\"content\":\"A\"},\"index\":0}]}");
        assertEquals("A", later.content(), "the first choice, wherever it is in the list");
    }

    @Test
    void theFinishReasonAndTheUsageOfTheLastChunks() throws IOException {
        OpenAiChunk finish = OpenAiChunk.read("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}");
        assertEquals("length", finish.finishReason());
        assertNull(finish.content());
        OpenAiChunk usage = OpenAiChunk.read("{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,"
                + "\"total_tokens\":20,\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
        assertTrue(usage.hasUsage());
        assertEquals(12, usage.promptTokens());
        assertEquals(8, usage.completionTokens());
    }

    @Test
    void incompleteOrNegativeUsageIsNoUsage() throws IOException {
        assertFalse(OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":12}}").hasUsage());
        assertFalse(OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":-1,\"completion_tokens\":3}}").hasUsage());
        assertFalse(OpenAiChunk.read("{\"usage\":null}").hasUsage());
        assertFalse(OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":\"12\",\"completion_tokens\":3}}").hasUsage());
    }

    @Test
    void toolCallDeltasArePassedOnAsTheyCame() throws IOException {
        String calls = "[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"arguments\":\"{\\\"city\\\":\\\"Par\"}}]";
        OpenAiChunk chunk = OpenAiChunk.read("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":" + calls
                + "},\"finish_reason\":null}]}");
        assertEquals(calls, chunk.toolCallsJson());
        assertNull(chunk.content());
    }

    /** Each tool-call delta, in its own chunk of one stream, is passed on as the expected one. */
    private static void assertPassedOnAs(String[] deltas, String[] expected) throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        for (int i = 0; i < deltas.length; i++) {
            assertEquals(expected[i], OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[" + deltas[i]
                    + "]}}]}", indexes).toolCallsJson(), "delta " + i);
        }
    }

    /** An audit against real servers' shapes (Gemini's endpoint, Ollama, TGI, proxies in front of Gemini, Groq). */
    @Test
    void toolCallDeltasWithoutIndexOrWithNullsAreMadeSpecShaped() throws IOException {
        String[] deltas = {"{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}",
            "{\"id\":null,\"type\":null,\"function\":{\"name\":null,\"arguments\":\"{\\\"a\\\":\"}}",
            "{\"id\":\"call_1\",\"function\":{\"arguments\":\"1}\"}}",
            "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}"};
        String[] expected = {"[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                + "\"arguments\":\"\"}}]", "[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\":\"}}]",
            "[{\"index\":0,\"id\":\"call_1\",\"function\":{\"arguments\":\"1}\"}}]",
            "[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]"};
        assertPassedOnAs(deltas, expected);
    }

    /** A fuzzing audit: what a server put in a call was passed on as it was, whatever its type. */
    @Test
    void aCallsIdTypeNameAndArgumentsAreWhatTheSdksParse() throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        String first = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"type\":\"x\","
                + "\"function\":{\"name\":\"f\",\"arguments\":{\"a\":[1,1e999999999]}},"
                + "\"extra_content\":{\"google\":{\"thought_signature\":\"sig\"}}}]}}]}", indexes).toolCallsJson();
        assertTrue(first.matches("\\[\\{\"index\":0,\"id\":\"call_[A-Za-z0-9]{24}\",\"type\":\"function\","
                + "\"function\":\\{\"name\":\"f\",\"arguments\":\"\\{\\\\\"a\\\\\":\\[1,1E\\+999999999]}\"},"
                + "\"extra_content\":\\{\"google\":\\{\"thought_signature\":\"sig\"}}}]"), first);
        assertEquals("[{\"index\":0,\"function\":{\"arguments\":\"}\"}}]", OpenAiChunk.read("{\"choices\":[{\"delta\":"
                + "{\"tool_calls\":[{\"index\":0,\"id\":7,\"function\":{\"name\":5,\"arguments\":\"}\"}}]}}]}",
                indexes).toolCallsJson(), "a later delta gets no id; a name that is no string is left out");
        assertEquals("[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\"}]", OpenAiChunk.read("{\"choices\":"
                + "[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"function\":\"f\"}]}}]}", indexes)
                .toolCallsJson(), "a new call's first delta says its type; a function that is no object is left out");
    }

    @Test
    void textThatIsNoChunkLeavesTheCallsAsTheyWere() throws IOException {
        // An event over two lines is read line by line first: its first line's calls must not count as opened.
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        String first = "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\"}}]}";
        assertThrows(IOException.class, () -> OpenAiChunk.read(first, indexes));
        String whole = OpenAiChunk.read(first + "\n}]}", indexes).toolCallsJson();
        assertTrue(whole.matches("\\[\\{\"index\":0,\"id\":\"call_\\w{24}\",\"type\":\"function\",.*"), whole);
    }

    @Test
    void usageTooLargeToBeACountIsTheLargestNotUnreadable() throws IOException {
        OpenAiChunk chunk = OpenAiChunk.read("{\"choices\":[],\"usage\":{\"prompt_tokens\":1e30,"
                + "\"completion_tokens\":100000000000000000000000,\"total_tokens\":1e999999999}}");
        assertEquals(Long.MAX_VALUE, chunk.promptTokens());
        assertEquals(Long.MAX_VALUE, chunk.completionTokens());
        chunk = OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":2.9,\"completion_tokens\":1e-999999999}}");
        assertEquals(2, chunk.promptTokens());
        assertEquals(0, chunk.completionTokens());
    }

    @Test
    void usageBeyondCompletionTokensErrorsAsTextAndGroqsOldUsage() throws IOException {
        OpenAiChunk gemini = OpenAiChunk.read("{\"choices\":[],\"usage\":{\"prompt_tokens\":20,"
                + "\"completion_tokens\":6,\"total_tokens\":611,\"completion_tokens_details\":{\"reasoning_tokens\":585}}}");
        assertEquals(20, gemini.promptTokens());
        assertEquals(591, gemini.completionTokens(), "what the total says the provider produced");
        assertEquals(8, OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,"
                + "\"total_tokens\":20}}").completionTokens());
        assertEquals("CUDA out of memory", OpenAiChunk.read("{\"error\":\"CUDA out of memory\","
                + "\"error_type\":\"generation\"}").error());
        OpenAiChunk groq = OpenAiChunk.read("{\"choices\":[],\"x_groq\":{\"id\":\"r\",\"usage\":{\"prompt_tokens\":500,"
                + "\"completion_tokens\":3}}}");
        assertEquals(500, groq.promptTokens());
        assertEquals(3, groq.completionTokens());
    }

    @Test
    void aReportedErrorWithItsMessage() throws IOException {
        assertEquals("overloaded", OpenAiChunk.read("{\"error\":{\"message\":\"overloaded\",\"code\":503,"
                + "\"metadata\":{\"a\":[1,2]}}}").error());
        assertEquals("null", OpenAiChunk.read("{\"error\":{\"code\":500}}").error(), "an error without a message");
        assertNull(OpenAiChunk.read("{\"error\":null,\"choices\":[]}").error(), "no error object, no error");
    }

    @Test
    void textThatIsNotOneJsonObjectIsUnreadable() {
        assertThrows(IOException.class, () -> OpenAiChunk.read("[1,2]"));
        assertThrows(IOException.class, () -> OpenAiChunk.read("null"));
        assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":[}"));
        assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":[]} {}"));
        assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":"));
    }

    @Test
    void reasoningAndRefusalOfTheFirstChoiceOnly() throws IOException {
        OpenAiChunk chunk = OpenAiChunk.read("{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"R\","
                + "\"reasoning_content\":\"R2\",\"refusal\":\"No\"}},{\"index\":1,\"delta\":{\"reasoning\":\"X\","
                + "\"refusal\":\"Y\"}}]}");
        assertEquals("R", chunk.reasoning(), "reasoning wins over reasoning_content");
        assertEquals("No", chunk.refusal());
        assertEquals("R2", OpenAiChunk.read("{\"choices\":[{\"delta\":{\"reasoning_content\":\"R2\"}}]}")
                .reasoning());
        OpenAiChunk other = OpenAiChunk.read("{\"choices\":[{\"index\":1,\"delta\":{\"reasoning\":\"X\","
                + "\"reasoning_content\":\"Z\",\"refusal\":\"Y\"}}]}");
        assertNull(other.reasoning());
        assertNull(other.refusal());
        OpenAiChunk nulls = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"reasoning\":null,\"refusal\":null,"
                + "\"content\":\"a\"}}]}");
        assertNull(nulls.reasoning());
        assertNull(nulls.refusal());
    }

    /**
     * A fuzzing audit (G17) found that a number whose exponent is beyond a decimal's ({@code 1e99999999999}) threw
     * Jackson's NumberFormatException out of the chunk reader, which promises an IOException for what it cannot read:
     * as a token count it counts as the largest (none below one), elsewhere (a tool call's arguments) the chunk is
     * unreadable.
     */
    @Test
    void aNumberBeyondAnyDecimalIsTheLargestCountOrAnUnreadableChunk() throws IOException {
        OpenAiChunk huge = OpenAiChunk.read("{\"choices\":[],\"usage\":{\"prompt_tokens\":11e9999992345678901234567890123,"
                + "\"completion_tokens\":1e-99999999999999}}");
        assertEquals(Long.MAX_VALUE, huge.promptTokens());
        assertEquals(0, huge.completionTokens());
        OpenAiChunk negative = OpenAiChunk.read("{\"x_groq\":{\"usage\":{\"prompt_tokens\":-1e99999999999,"
                + "\"completion_tokens\":2}}}");
        assertFalse(negative.hasUsage(), "a negative count is none");
        assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":"
                + "\"c\",\"function\":{\"name\":\"f\",\"arguments\":{\"n\":1e99999999999}}}]}}]}"));
    }

    /**
     * A fuzzing audit (G17) found that a tool call in a choice other than the answer's (index 1, which the gateway
     * does not pass on) opened that call for the rest of the stream, so the answer's own first delta of it went to
     * the client without its id and type, which the SDKs refuse; a chunk that turned out broken did the same.
     */
    @Test
    void onlyTheAnswersOwnToolCallsOpenACall() throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        OpenAiChunk other = OpenAiChunk.read("{\"choices\":[{\"index\":1,\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"id\":\"c9\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}", indexes);
        assertNull(other.toolCallsJson(), "another choice is not the answer");
        assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"function\":{\"name\":\"g\"}}]}}]} and then some", indexes));
        OpenAiChunk answer = OpenAiChunk.read("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"function\":{\"name\":\"x\",\"arguments\":\"{}\"}}]}}]}", indexes);
        assertTrue(answer.toolCallsJson().matches("\\[\\{\"index\":0,\"id\":\"call_[^\"]+\",\"type\":\"function\",.*"),
                answer.toolCallsJson());
        OpenAiChunk next = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"function\":{\"arguments\":\"1\"}}]}}]}", indexes);
        assertEquals("[{\"index\":0,\"function\":{\"arguments\":\"1\"}}]", next.toolCallsJson(),
                "the call's next delta continues it");
    }

    /**
     * A fuzzing audit (G17) found that when a chunk carried the answer's tool calls twice (two choices without an
     * index, or a repeated delta member), the later ones, which are what is passed on, lost the id and type of a call
     * that only the earlier ones had opened; and a call only the earlier ones opened was never opened for the client.
     */
    @Test
    void toolCallsThatLaterOnesInTheChunkReplaceOpenNoCall() throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        OpenAiChunk twice = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":"
                + "{\"name\":\"a\"}}]}},{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"name\":\"b\"}}]}}]}",
                indexes);
        assertTrue(twice.toolCallsJson().matches("\\[\\{\"index\":0,\"id\":\"call_[^\"]+\",\"type\":\"function\","
                + "\"function\":\\{\"name\":\"b\"}}]"), twice.toolCallsJson());
        OpenAiChunk repeated = OpenAiChunk.read("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"id\":\"c0\"}]},\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c1\"}]}}]}", indexes);
        assertEquals("[{\"index\":1,\"id\":\"c1\",\"type\":\"function\"}]", repeated.toolCallsJson());
        OpenAiChunk later = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"function\":{\"name\":\"f\"}}]}}]}", indexes);
        assertTrue(later.toolCallsJson().contains("\"type\":\"function\"") && later.toolCallsJson().contains("\"id\":"),
                "call 0 was never passed on opened: " + later.toolCallsJson());
    }

    /**
     * A black-box audit (2026-11-29): a server numbering its calls from 1 had them passed on so, and the openai SDK's
     * stream helpers threw ("Cannot read properties of undefined"); calls without index and id — two in one array,
     * or one after another with other names, or with empty ids — were merged into one call named "get_weatherget_time".
     */
    @Test
    void clientsSeeTheCallsNumberedFromZeroAndCallsWithoutIndexOrIdStayApart() throws IOException {
        assertPassedOnAs(new String[] {
            "{\"index\":1,\"id\":\"call_i1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}",
            "{\"index\":1,\"function\":{\"arguments\":\"{}\"}}",
            "{\"index\":5,\"id\":\"call_i5\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}"},
            new String[] {
                "[{\"index\":0,\"id\":\"call_i1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]",
                "[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]",
                "[{\"index\":1,\"id\":\"call_i5\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]"});

        String both = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"get_weather\","
                + "\"arguments\":\"{}\"}},{\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}}]}}]}",
                new OpenAiChunk.ToolCallIndexes()).toolCallsJson();
        assertTrue(both.matches("\\[\\{\"index\":0,\"id\":\"call_[^\"]+\",\"type\":\"function\",\"function\":\\{\"name\":"
                + "\"get_weather\",\"arguments\":\"\\{}\"}},\\{\"index\":1,\"id\":\"call_[^\"]+\",\"type\":\"function\","
                + "\"function\":\\{\"name\":\"get_time\",\"arguments\":\"\\{}\"}}]"), "two in one array: " + both);

        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        String[] deltas = {"{\"id\":\"\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\"}}",
            "{\"id\":\"\",\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}",
            "{\"id\":\"\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}}"};
        int[] expected = {0, 0, 1};
        for (int i = 0; i < deltas.length; i++) {
            String calls = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[" + deltas[i] + "]}}]}", indexes)
                    .toolCallsJson();
            assertTrue(calls.startsWith("[{\"index\":" + expected[i] + ","), "delta " + i + ": " + calls);
        }
    }

    /**
     * A fuzzing audit (G17) found that a tool call's index was passed on as whatever {@code intValue} made of it: a
     * negative index went to the client as is, a fraction was cut, and one beyond an int wrapped round to another
     * call's. An index that is not a whole number from 0 is no index: the call is placed as one without an index is.
     */
    @Test
    void aToolCallIndexThatIsNoArrayPositionIsNone() throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        String first = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-5,\"id\":\"a\"}]}}]}",
                indexes).toolCallsJson();
        assertEquals("[{\"index\":0,\"id\":\"a\",\"type\":\"function\"}]", first);
        for (String index : new String[] {"4294967296", "1.5", "-0.5", "1e999999999", "2147483647"}) {
            String calls = OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":" + index
                    + ",\"id\":\"id" + index + "\"}]}}]}", indexes).toolCallsJson();
            assertTrue(calls.matches("\\[\\{\"index\":[1-5],\"id\":\"id.*"), index + ": " + calls);
        }
        assertEquals("[{\"index\":6,\"id\":\"b\",\"type\":\"function\"}]", OpenAiChunk.read("{\"choices\":[{\"delta\":"
                + "{\"tool_calls\":[{\"index\":7.0,\"id\":\"b\"}]}}]}", indexes).toolCallsJson(), "the seventh call");
        assertEquals("[{\"index\":6,\"function\":{\"arguments\":\"x\"}}]", OpenAiChunk.read("{\"choices\":[{\"delta\":"
                + "{\"tool_calls\":[{\"index\":7,\"function\":{\"arguments\":\"x\"}}]}}]}", indexes).toolCallsJson(),
                "7.0 is a whole number: index 7 continues that call");
    }

    /**
     * A review: a delta without an index was matched only against the last call's id, so a call continued after
     * another had opened became a new call with the first one's id, and the first call's arguments stayed cut.
     */
    @Test
    void aDeltaWithoutIndexContinuesTheCallItsIdOpened() throws IOException {
        String[] deltas = {"{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}",
            "{\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}",
            "{\"id\":\"a\",\"function\":{\"arguments\":\"1}\"}}",
            "{\"function\":{\"arguments\":\" \"}}"};
        String[] expected = {"[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                + "\"arguments\":\"{\\\"x\\\":\"}}]",
            "[{\"index\":1,\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]",
            "[{\"index\":0,\"id\":\"a\",\"function\":{\"arguments\":\"1}\"}}]",
            "[{\"index\":0,\"function\":{\"arguments\":\" \"}}]"};
        assertPassedOnAs(deltas, expected);
    }

    /**
     * A review: each chunk copied every call the stream had opened, so a provider opening call after call made the
     * work grow with the square of the calls. A chunk now carries only what it adds, and an answer of more than
     * {@value OpenAiChunk.ToolCallIndexes#MOST_CALLS} calls is unreadable.
     */
    @Test
    void anAnswerOfMoreToolCallsThanAnyClientUsesIsUnreadable() throws IOException {
        OpenAiChunk.ToolCallIndexes indexes = new OpenAiChunk.ToolCallIndexes();
        StringBuilder calls = new StringBuilder();
        for (int i = 0; i < OpenAiChunk.ToolCallIndexes.MOST_CALLS; i++) {
            calls.append(i == 0 ? "" : ",").append("{\"index\":").append(i).append(",\"id\":\"c").append(i)
                    .append("\"}");
        }
        OpenAiChunk.read("{\"choices\":[{\"delta\":{\"tool_calls\":[" + calls + "]}}]}", indexes);
        assertEquals("[{\"index\":5,\"function\":{\"arguments\":\"x\"}}]", OpenAiChunk.read("{\"choices\":"
                + "[{\"delta\":{\"tool_calls\":[{\"index\":5,\"function\":{\"arguments\":\"x\"}}]}}]}", indexes)
                .toolCallsJson(), "a call opened in an earlier chunk is continued");
        IOException tooMany = assertThrows(IOException.class, () -> OpenAiChunk.read("{\"choices\":[{\"delta\":"
                + "{\"tool_calls\":[{\"index\":" + OpenAiChunk.ToolCallIndexes.MOST_CALLS + "}]}}]}", indexes));
        assertEquals("more than 1024 tool calls in one answer", tooMany.getMessage());
    }

    /** A review: a zero with an exponent too large for a decimal was counted as the largest count. */
    @Test
    void aZeroWithAHugeExponentIsZero() throws IOException {
        OpenAiChunk chunk = OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":0e99999999999}}");
        assertEquals(0, chunk.completionTokens());
        chunk = OpenAiChunk.read("{\"usage\":{\"prompt_tokens\":-0.0e99999999999,\"completion_tokens\":3}}");
        assertEquals(0, chunk.promptTokens());
    }
}
