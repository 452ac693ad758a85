package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * G17 fuzz target: the gateway's own SSE framing of an answer ({@link SseStream} with {@link ChunkWriter}). Any answer
 * text, refusal, reasoning and error message, in any pieces, becomes a well-formed event stream — each event one
 * {@code data:} line of one JSON object (or {@code [DONE]}) and a blank line, in valid UTF-8 — that an SSE reader
 * reads back to the same texts. Inputs: {@code SseOutputFuzzTestInputs/}.
 */
class SseOutputFuzzTest {

    private static final JsonMapper JSON = JsonMapper.createDefault();
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor();

    @AfterAll
    static void stopTimers() {
        TIMERS.shutdownNow();
    }

    @FuzzTest(maxDuration = "10m")
    void anyAnswerIsWellFormedSseThatReadsBackToItsText(FuzzedDataProvider data) throws Exception {
        SseStream stream = new SseStream(new ChunkWriter(JSON, "chatcmpl-fuzz", 1, "fuzz/model"),
                new SseSettings(Duration.ofHours(1), Duration.ofHours(1)), TIMERS, HttpRequest.POST("/v1/chat/completions", ""),
                Clock.systemUTC(), data.consumeBoolean());
        StringBuilder content = new StringBuilder();
        StringBuilder refusal = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        boolean fails = data.consumeBoolean();
        String failure = fails ? data.consumeString(200) : null;
        stream.onStarted("fuzz");
        int pieces = data.consumeInt(0, 8);
        for (int i = 0; i < pieces; i++) {
            String text = data.consumeString(100);
            if (text.isEmpty()) {
                continue;
            }
            switch (data.consumeInt(0, 2)) {
                case 0 -> {
                    stream.onDelta(text);
                    content.append(text);
                }
                case 1 -> {
                    stream.onText(AnswerChannel.REFUSAL, text);
                    refusal.append(text);
                }
                default -> {
                    stream.onText(AnswerChannel.REASONING, text);
                    reasoning.append(text);
                }
            }
        }
        if (fails) {
            stream.onFailure(new CompletionFailure(502, "upstream_error", "upstream_error", failure, 0, true));
        } else {
            stream.onComplete(new CompletionResult("stop", new TokenUsage(3, 4), Usd.ofMicros(7), "fuzz"));
        }

        @SuppressWarnings("unchecked")
        Publisher<byte[]> body = (Publisher<byte[]>) stream.response().get().body();
        List<byte[]> written = Flux.from(body).collectList().block(Duration.ofSeconds(5));
        StringBuilder read = new StringBuilder();
        for (byte[] bytes : written) {
            String event = new String(bytes, StandardCharsets.UTF_8);
            assertTrue(java.util.Arrays.equals(bytes, event.getBytes(StandardCharsets.UTF_8)), "valid UTF-8");
            read.append(event);
        }
        List<String> events = events(read.toString());
        assertEquals(fails ? null : "[DONE]", events.get(events.size() - 1).equals("[DONE]") ? "[DONE]" : null);
        StringBuilder readContent = new StringBuilder();
        StringBuilder readRefusal = new StringBuilder();
        StringBuilder readReasoning = new StringBuilder();
        String readError = null;
        for (String event : events) {
            if (event.equals("[DONE]")) {
                continue;
            }
            Map<String, Object> chunk = JSON.readValue(event, Argument.mapOf(String.class, Object.class));
            if (chunk.get("error") instanceof Map<?, ?> error) {
                readError = (String) error.get("message");
                continue;
            }
            for (Object choice : (List<?>) chunk.get("choices")) {
                Map<?, ?> delta = (Map<?, ?>) ((Map<?, ?>) choice).get("delta");
                append(readContent, delta.get("content"));
                append(readRefusal, delta.get("refusal"));
                append(readReasoning, delta.get("reasoning"));
            }
        }
        assertEquals(content.toString(), readContent.toString());
        assertEquals(refusal.toString(), readRefusal.toString());
        assertEquals(reasoning.toString(), readReasoning.toString());
        assertEquals(failure, readError);
    }

    private static void append(StringBuilder into, Object text) {
        if (text != null) {
            into.append((String) text);
        }
    }

    /**
     * The events of an SSE body as the WHATWG reader reads them, requiring this gateway's form: every line a comment
     * or one {@code data: } line, each event ended by a blank line, nothing after the last.
     */
    private static List<String> events(String body) throws IOException {
        List<String> events = new ArrayList<>();
        String[] lines = body.split("\r\n|\r|\n", -1);
        assertEquals("", lines[lines.length - 1], "the body ends with a line end");
        String data = null;
        for (int i = 0; i < lines.length - 1; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                assertTrue(data != null, "a blank line ends an event with data");
                events.add(data);
                data = null;
            } else if (!line.startsWith(":")) {
                assertTrue(line.startsWith("data: ") && data == null, "one data line per event: " + line);
                data = line.substring("data: ".length());
            }
        }
        assertTrue(data == null, "the last event is ended");
        return events;
    }
}
