package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Test fixture for fuzz tests of a provider's decoder: checks what the decoder tells its listener as it is told —
 * nothing after the one terminal event, no empty output, tool-call deltas that are a JSON array of calls each with an
 * integer {@code index}, a call's first delta with a non-empty string {@code id} and {@code "type": "function"}, a
 * function's {@code name} and {@code arguments} strings when present, and usage counts that are not negative.
 */
public final class CheckingListener implements ModelProvider.UpstreamListener {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Set<Integer> opened = new HashSet<>();
    private int terminals;

    public int terminals() {
        return terminals;
    }

    private void open() {
        assertEquals(0, terminals, "an event after the terminal one");
    }

    @Override
    public void onFirstByte() {
        open();
    }

    @Override
    public void onDelta(String text) {
        open();
        assertFalse(text.isEmpty(), "an empty delta");
    }

    @Override
    public void onText(AnswerChannel channel, String text) {
        open();
        assertNotNull(channel);
        assertFalse(text.isEmpty(), "an empty " + channel + " text");
    }

    @Override
    public void onToolCallDelta(String toolCallsJson) {
        open();
        checkToolCalls(toolCallsJson, opened);
    }

    @Override
    public void onLogprobs(String contentJson) {
        open();
        assertTrue(read(contentJson) instanceof List<?>, "logprobs content is an array: " + contentJson);
    }

    @Override
    public void onFinish(String reason, TokenUsage reported) {
        open();
        terminals++;
        assertNotNull(reason);
        if (reported != null) {
            assertTrue(reported.promptTokens() >= 0 && reported.completionTokens() >= 0, reported.toString());
        }
    }

    @Override
    public void onFailure(ModelProvider.UpstreamFailure failure) {
        open();
        terminals++;
        assertNotNull(failure.message());
    }

    /** Checks one tool-call delta (see the class comment); {@code opened} holds the indexes of calls seen so far. */
    public static void checkToolCalls(String json, Set<Integer> opened) {
        if (!(read(json) instanceof List<?> calls)) {
            throw new AssertionError("tool calls are a JSON array: " + json);
        }
        assertFalse(calls.isEmpty(), "an empty tool-call delta");
        for (Object item : calls) {
            if (!(item instanceof Map<?, ?> call)) {
                throw new AssertionError("a tool call is an object: " + json);
            }
            if (!(call.get("index") instanceof Number number) || number.longValue() < 0
                    || number.longValue() > Integer.MAX_VALUE || !number.toString().matches("[0-9]+")) {
                throw new AssertionError("a tool call has an integer index: " + json);
            }
            if (opened.add(number.intValue())) {
                assertTrue(call.get("id") instanceof String id && !id.isEmpty(), "a call's first delta has an id: " + json);
                assertEquals("function", call.get("type"), "a call's first delta has type function: " + json);
            }
            if (call.containsKey("id")) {
                assertTrue(call.get("id") instanceof String id && !id.isEmpty(), "an id is a string: " + json);
            }
            if (call.containsKey("type")) {
                assertEquals("function", call.get("type"), json);
            }
            if (call.containsKey("function")) {
                if (!(call.get("function") instanceof Map<?, ?> function)) {
                    throw new AssertionError("a call's function is an object: " + json);
                }
                if (function.containsKey("name")) {
                    assertTrue(function.get("name") instanceof String, "a function's name is a string: " + json);
                }
                if (function.containsKey("arguments")) {
                    assertTrue(function.get("arguments") instanceof String, "arguments are a string: " + json);
                }
            }
        }
    }

    /** Strict JSON (one value, nothing after it), as a client's SDK reads it. */
    public static Object read(String json) {
        try (JsonParser parser = JSON.createParser(json)) {
            parser.nextToken();
            Object value = JsonValues.read(parser);
            if (parser.nextToken() != null) {
                throw new AssertionError("text after the JSON value: " + json);
            }
            return value;
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + json, e);
        }
    }
}
