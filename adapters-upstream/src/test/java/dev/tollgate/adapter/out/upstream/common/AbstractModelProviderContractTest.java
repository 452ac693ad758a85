package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Contract of every HTTP {@link ModelProvider}: run against a local stub that speaks the provider's own protocol
 * (its dialect), streaming and tools included.
 */
public abstract class AbstractModelProviderContractTest {

    /** The request path the provider posts to, e.g. {@code /v1/chat/completions}. */
    protected abstract String path();

    protected abstract ModelProvider provider(String baseUrl, UpstreamHttp http, JsonMapper json);

    /** SSE data payloads answering with {@code pieces} of text, then the finish and usage (5 in, 2 out). */
    protected abstract List<String> textStream(List<String> pieces);

    /** SSE data payloads answering with one tool call {@code call_1}/{@code lookup} whose arguments arrive in pieces. */
    protected abstract List<String> toolCallStream(List<String> argumentPieces);

    /** The payloads that open a text answer, before its first piece. */
    protected abstract List<String> streamOpening();

    /** The payload of one piece of text. */
    protected abstract String textPiece(String text);

    /** SSE data payloads of a stream cut before its end (one text piece {@code par}). */
    protected abstract List<String> truncatedStream();

    /** Checks the translated upstream request for {@link #REQUEST}. */
    protected abstract void assertUpstreamRequest(String body);


    private HttpServer server;
    protected final AtomicReference<Handler> handler = new AtomicReference<>();
    private final AtomicReference<String> lastBody = new AtomicReference<>();
    protected ModelProvider provider;
    private UpstreamHttp http;

    protected interface Handler {
        void handle(HttpExchange exchange) throws IOException, InterruptedException;
    }

    protected static final ProviderRoute ROUTE = new ProviderRoute(new ProviderId("stub"), "upstream-model",
            TokenPrice.FREE, TokenPrice.FREE, ModelCapabilities.ALL);
    protected static final ChatRequest REQUEST = new ChatRequest(new ModelId("m"),
            List.of(new ChatMessage("user", "hi", "{\"role\":\"user\",\"content\":\"hi\"}")), 16, null, null, null,
            null, List.of(), 7L, false, null, null, null, null, null, true);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(path(), exchange -> {
            lastBody.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            try {
                handler.get().handle(exchange);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                exchange.close();
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        http = UpstreamHttp.standalone();
        provider = provider("http://127.0.0.1:" + server.getAddress().getPort(), http, JsonMapper.createDefault());
    }

    @AfterEach
    void stop() {
        http.close();
        server.stop(0);
    }

    /** Where the stub listens, for a provider a test builds itself. */
    protected String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The body of the last request the stub received. */
    protected String lastRequestBody() {
        return lastBody.get();
    }

    /** Calls the provider with the standard route and request and waits for the call's end. */
    protected RecordingListener callAndWait() throws InterruptedException {
        RecordingListener recorder = new RecordingListener();
        provider.call(ROUTE, REQUEST, 16, recorder);
        recorder.await();
        return recorder;
    }

    /** Answers with a status and a body of the given type. */
    protected static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** Starts a 200 event stream of unknown length; answers where to write it. */
    protected static OutputStream openStream(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }

    /**
     * Answers with {@code events} and then holds the stream open, without its end, until {@code release} (at most
     * 10 s): a server that sent its whole answer and does not close.
     */
    protected void holdOpenAfter(List<String> events, java.util.concurrent.CountDownLatch release) {
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            for (String event : events) {
                out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            release.await(10, java.util.concurrent.TimeUnit.SECONDS);
            out.close();
        });
    }

    protected static void sse(HttpExchange exchange, List<String> events) throws IOException {
        OutputStream out = openStream(exchange);
        for (String event : events) {
            out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    @Test
    void anEventOverSeveralDataLinesIsOneEventAndAnEmptyDataLineIsNothing() throws Exception {
        List<String> events = new ArrayList<>(textStream(List.of("one", " two")));
        int at = events.indexOf(textPiece("one"));
        String piece = events.get(at);
        int cut = piece.indexOf(',') + 1;
        // SSE joins an event's data lines with a line feed, which JSON reads as white space.
        events.set(at, piece.substring(0, cut) + "\ndata: " + piece.substring(cut));
        events.add(at, ""); // an event whose one data line is empty
        handler.set(exchange -> sse(exchange, events));
        RecordingListener recorder = callAndWait();
        assertNull(recorder.failure);
        assertEquals(List.of("one", " two"), recorder.deltas);
        assertNotNull(recorder.finishReason);
    }

    @Test
    void anEventOfManyDataLinesIsReadOnceAtItsEndNotAgainWithEachLine() throws Exception {
        // An audit: each line was read again with all the lines before it, so 60,000 lines whose text so far was
        // a valid start of JSON kept the event loop busy for half a minute.
        List<String> events = new ArrayList<>(textStream(List.of("one")));
        int at = events.indexOf(textPiece("one"));
        String piece = events.get(at);
        StringBuilder lines = new StringBuilder(piece.substring(0, piece.length() - 1)).append(",\"x\":[{}");
        lines.append("\ndata: ,{}".repeat(60_000)).append("\ndata: ]}");
        events.set(at, lines.toString());
        handler.set(exchange -> sse(exchange, events));
        RecordingListener recorder = callAndWait();
        assertNull(recorder.failure);
        assertEquals(List.of("one"), recorder.deltas);
        assertNotNull(recorder.finishReason);
    }

    @Test
    void anEventOfSeveralLinesThatTheBodyEndsWithoutABlankLineIsStillRead() throws Exception {
        List<String> events = new ArrayList<>(truncatedStream());
        String last = textPiece("tail");
        int cut = last.indexOf(',') + 1;
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            for (String event : events) {
                out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            out.write(("data: " + last.substring(0, cut) + "\ndata: " + last.substring(cut) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
        });
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("par", "tail"), recorder.deltas);
        assertNotNull(recorder.failure, "cut before its end: a failure after the output");
    }

    @Test
    void anUnreadableEventIsAFailureOnceItEnds() throws Exception {
        List<String> events = new ArrayList<>(truncatedStream());
        events.add("{\"choices\":[");
        events.addAll(textStream(List.of("never")));
        handler.set(exchange -> sse(exchange, events));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("par"), recorder.deltas);
        assertEquals(502, recorder.failure.status());
        assertTrue(recorder.failure.message().startsWith("unreadable ") && recorder.failure.message()
                .endsWith(" from stub"), recorder.failure.message());
        assertFalse(recorder.failure.retryable(), "the same provider would send the same again");
        assertTrue(recorder.failure.providerFault(), "another provider of the model may serve the request");
        assertNull(recorder.finishReason, "one terminal event: the failure");
    }

    @Test
    void streamsDeltasAndReportsUsageAndFinishReason() throws Exception {
        handler.set(exchange -> sse(exchange, textStream(List.of("Hel", "lo"))));
        RecordingListener recorder = callAndWait();
        assertTrue(recorder.firstByte);
        assertEquals(List.of("Hel", "lo"), recorder.deltas);
        assertEquals("stop", recorder.finishReason);
        assertEquals(new TokenUsage(5, 2), recorder.usage);
        assertUpstreamRequest(lastBody.get());
    }

    @Test
    void anEventLineBeyondTheLimitIsAFailureThatNamesItAndIsNotRetried() throws Exception {
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            byte[] piece = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
            try {
                out.write("data: ".getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < 40; i++) { // 2.5 MiB without a newline
                    out.write(piece);
                    out.flush();
                }
            } catch (IOException e) {
                // the gateway closed the connection
            }
        });
        RecordingListener recorder = callAndWait();
        assertTrue(recorder.failure.message().contains("longer than"), recorder.failure.message());
        assertFalse(recorder.failure.retryable(), "the same provider would send the same again");
        assertTrue(recorder.deltas.isEmpty());
    }

    @Test
    void keepAliveCommentsSayTheProviderIsThereWithoutOutput() throws Exception {
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            List<String> events = textStream(List.of("a"));
            out.write(("data: " + events.get(0) + "\n\n").getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < 3; i++) {
                out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            for (String event : events.subList(1, events.size())) {
                out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            out.flush();
        });
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("a"), recorder.deltas);
        assertTrue(recorder.alive.get() >= 4, "the answer's start and three keep-alives: " + recorder.alive.get());
    }

    /**
     * A paused call stops reading: the provider is held back by TCP once the socket buffers are full, and the rest
     * arrives after the resume (a client that stopped reading had 20 MB answers pile up in the gateway's memory).
     */
    @Test
    void aPausedCallStopsReadingUntilItIsResumed() throws Exception {
        int pieces = 20_000;
        String piece = "y".repeat(1000);
        List<String> events = textStream(java.util.Collections.nCopies(pieces, piece));
        handler.set(exchange -> sse(exchange, events));
        RecordingListener recorder = RecordingListener.pausingAfter(1);
        ModelProvider.UpstreamCall call = recorder.of(provider.call(ROUTE, REQUEST, 16, recorder));
        Thread.sleep(700);
        int whilePaused = recorder.deltas.size();
        // Measured: about 120 KB read while paused (the sockets' buffers), 3,900-14,700 KB in the same time unpaused.
        assertTrue(whilePaused < 2_000, "20 MB sent, " + whilePaused + " KB read while paused");
        assertNull(recorder.finishReason);

        call.resume();
        recorder.await(60); // 20 MB of events: seconds on a busy CI machine (5 s was once too short there)
        assertEquals(pieces, recorder.deltas.size(), "all of it after the resume");
        assertEquals("stop", recorder.finishReason);
    }

    /**
     * A status line is no byte of the answer: a provider that sends its headers and then nothing has not begun, so
     * the first-byte timeout (and fallback) still applies to it — an audit (2026-11-29) found the idle timeout
     * running from the headers instead.
     */
    @Test
    void theStatusLineAloneIsNoByteOfTheAnswer() throws Exception {
        java.util.concurrent.CountDownLatch headersSent = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch bodyMayGo = new java.util.concurrent.CountDownLatch(1);
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            out.flush();
            headersSent.countDown();
            try {
                bodyMayGo.await(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (String event : textStream(List.of("a"))) {
                out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
            }
            out.flush();
        });
        RecordingListener recorder = new RecordingListener();
        provider.call(ROUTE, REQUEST, 16, recorder);
        assertTrue(headersSent.await(5, java.util.concurrent.TimeUnit.SECONDS));
        Thread.sleep(300); // the headers are at the gateway by now
        assertFalse(recorder.firstByte, "headers alone");
        assertEquals(0, recorder.alive.get());
        bodyMayGo.countDown();
        recorder.await();
        assertEquals(List.of("a"), recorder.deltas);
    }

    @Test
    void toolCallFragmentsArePassedOnAsTheyArrive() throws Exception {
        handler.set(exchange -> sse(exchange, toolCallStream(List.of("{\"q\":", "1}"))));
        RecordingListener recorder = callAndWait();
        assertEquals("tool_calls", recorder.finishReason);
        assertTrue(recorder.deltas.isEmpty());
        String all = String.join("", recorder.toolCalls);
        assertTrue(recorder.toolCalls.get(0).contains("\"id\":\"call_1\"") && all.contains("\"name\":\"lookup\""), all);
        assertTrue(all.contains("{\\\"q\\\":") && all.contains("1}"), all);
        assertTrue(recorder.toolCalls.stream().allMatch(c -> c.contains("\"index\":0")), all);
    }

    @Test
    void rateLimitingIsRetryableWithTheUpstreamsRetryAfter() throws Exception {
        handler.set(exchange -> {
            exchange.getResponseHeaders().set("Retry-After", "7");
            byte[] body = "{\"error\":{\"message\":\"slow down\"}}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(429, body.length);
            exchange.getResponseBody().write(body);
        });
        RecordingListener recorder = callAndWait();
        assertNotNull(recorder.failure);
        assertEquals(429, recorder.failure.status());
        assertTrue(recorder.failure.retryable() && recorder.failure.rateLimited());
        assertEquals(Duration.ofSeconds(7), recorder.failure.retryAfter());
        assertFalse(recorder.firstByte);

        // Azure OpenAI's wait in milliseconds, when there is no Retry-After.
        handler.set(exchange -> {
            exchange.getResponseHeaders().set("retry-after-ms", "45000");
            exchange.sendResponseHeaders(429, -1);
        });
        assertEquals(Duration.ofSeconds(45), callAndWait().failure.retryAfter());

        // One that is no delay is as if absent: still a rate limit, not an unreachable provider (an audit saw
        // 1e999999999 throw while it was scaled, and the 429 reported as "unreachable").
        handler.set(exchange -> {
            exchange.getResponseHeaders().set("retry-after-ms", "1e999999999");
            exchange.sendResponseHeaders(429, -1);
        });
        RecordingListener limited = callAndWait();
        assertEquals(429, limited.failure.status());
        assertTrue(limited.failure.rateLimited());
        assertNull(limited.failure.retryAfter());
    }

    @Test
    void aServerErrorIsRetryableAndABadRequestIsNot() throws Exception {
        for (int status : new int[] {500, 503, 400, 422}) {
            handler.set(exchange -> exchange.sendResponseHeaders(status, -1));
            RecordingListener recorder = callAndWait();
            assertEquals(status, recorder.failure.status());
            assertEquals(status >= 500, recorder.failure.retryable(), "status " + status);
        }
    }

    @Test
    void aRefusalOfTheGatewayItselfIsAProviderFaultAndItsBodyStaysInTheLog() throws Exception {
        // 402: the gateway's credit with the provider (OpenRouter, DeepSeek); 424: TGI's failed generation. An
        // audit found both answered to the client as its own bad request, and the model's other routes not tried.
        for (int status : new int[] {401, 402, 403, 404, 409, 424}) {
            handler.set(exchange -> answer(exchange, status, "application/json", "{\"error\":{\"message\":"
                    + "\"Incorrect API key provided: sk-UPSTR****7890 at http://10.0.0.5:8000/internal\"}}"));
            RecordingListener recorder = callAndWait();
            assertTrue(recorder.failure.providerFault(), "status " + status);
            String message = recorder.failure.message();
            assertTrue(message.contains("answered HTTP " + status), message);
            assertFalse(message.contains("sk-UPSTR") || message.contains("10.0.0.5") || message.contains("Incorrect"),
                    "what the provider said about the gateway's key is not the client's business: " + message);
        }
    }

    @Test
    void aRejectionOfTheRequestTellsTheClientWhatTheProviderSaidMasked() throws Exception {
        handler.set(exchange -> answer(exchange, 400, "application/json", "{\"error\":{\"message\":\"This model's "
                + "maximum context length is 8192 tokens (key sk-abcdefghijklmnop, see https://internal.example/docs)\","
                + "\"type\":\"invalid_request_error\"}}"));
        RecordingListener recorder = callAndWait();
        String message = recorder.failure.message();
        assertTrue(message.contains("maximum context length is 8192 tokens"), message);
        assertFalse(message.contains("sk-abcdefghijklmnop") || message.contains("internal.example"), message);
        assertFalse(recorder.failure.retryable() || recorder.failure.providerFault());
    }

    @Test
    void retryAfterIsReadAsSecondsFractionsRoundedUpOrAnHttpDate() {
        Instant now = Instant.parse("2026-11-27T10:00:00Z");
        assertEquals(Duration.ofSeconds(7), StreamingExchange.retryAfter("7", now));
        assertEquals(Duration.ofMillis(1500), StreamingExchange.retryAfter(" 1.5 ", now));
        assertEquals(Duration.ofSeconds(30), StreamingExchange.retryAfter("Fri, 27 Nov 2026 10:00:30 GMT", now));
        assertNull(StreamingExchange.retryAfter("Fri, 27 Nov 2026 09:59:00 GMT", now), "a date past is no wait");
        assertNull(StreamingExchange.retryAfter("0", now));
        assertNull(StreamingExchange.retryAfter("-3", now));
        assertNull(StreamingExchange.retryAfter("soon", now));
        // An audit: a tiny or a huge exponent was expanded to its digits, for seconds, or could not be scaled.
        assertNull(StreamingExchange.retryAfter("1e-999999999", now), "not how a delay is written");
        assertNull(StreamingExchange.retryAfter("1e999999999", now));
        assertEquals(Duration.ofDays(366), StreamingExchange.retryAfter("9".repeat(40), now), "at most a year");
        assertNull(StreamingExchange.retryAfter(null, now));
    }

    @Test
    void aWholeJsonAnswerWhereAStreamWasAskedForIsReportedNotRetried() throws Exception {
        handler.set(exchange -> answer(exchange, 200, "application/json",
                "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[]}"));
        RecordingListener recorder = callAndWait();
        assertNotNull(recorder.failure);
        assertFalse(recorder.failure.retryable(), "it would answer the same again, at the provider's cost");
        assertTrue(recorder.failure.providerFault(), "another provider of the model may serve the request");
        assertTrue(recorder.failure.message().contains("whole answer (application/json)"), recorder.failure.message());
    }

    @Test
    void anUnreachableUpstreamIsARetryableFailure() throws Exception {
        int port = server.getAddress().getPort();
        server.stop(0);
        ModelProvider unreachable = provider("http://127.0.0.1:" + port, http, JsonMapper.createDefault());
        RecordingListener recorder = new RecordingListener();
        unreachable.call(ROUTE, REQUEST, 16, recorder);
        recorder.await();
        assertTrue(recorder.failure.retryable());
    }

    @Test
    void aStreamCutBeforeDoneIsAFailure() throws Exception {
        handler.set(exchange -> sse(exchange, truncatedStream()));
        RecordingListener recorder = callAndWait();
        assertEquals(List.of("par"), recorder.deltas);
        assertNotNull(recorder.failure);
    }

    @Test
    void cancellingClosesTheUpstreamConnectionWithinASecond() throws Exception {
        CountDownLatch streaming = new CountDownLatch(1);
        AtomicLong closedAfterCancelMillis = new AtomicLong(-1);
        AtomicLong cancelledAt = new AtomicLong();
        CountDownLatch sawClose = new CountDownLatch(1);
        handler.set(exchange -> {
            OutputStream out = openStream(exchange);
            try {
                for (String opening : streamOpening()) {
                    out.write(("data: " + opening + "\n\n").getBytes(StandardCharsets.UTF_8));
                }
                for (int i = 0; i < 2_000; i++) {
                    out.write(("data: " + textPiece("t" + i) + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    streaming.countDown();
                    Thread.sleep(10);
                }
            } catch (IOException e) {
                closedAfterCancelMillis.set(System.currentTimeMillis() - cancelledAt.get());
                sawClose.countDown();
            }
        });
        RecordingListener recorder = new RecordingListener();
        ModelProvider.UpstreamCall call = provider.call(ROUTE, REQUEST, 16, recorder);
        assertTrue(streaming.await(5, TimeUnit.SECONDS));
        Thread.sleep(100);
        cancelledAt.set(System.currentTimeMillis());
        call.cancel();
        assertTrue(sawClose.await(3, TimeUnit.SECONDS), "the upstream never saw the connection close");
        assertTrue(closedAfterCancelMillis.get() <= 1_000, "closed " + closedAfterCancelMillis.get() + " ms after cancel");
        int delivered = recorder.deltas.size();
        Thread.sleep(100);
        assertEquals(delivered, recorder.deltas.size(), "no event after cancel");
        assertNull(recorder.failure, "a cancelled call reports nothing");
    }
}
