package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.RunningCompletion;
import io.micronaut.http.HttpRequest;
import io.micronaut.json.JsonMapper;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream holds its provider back while the client does not take what is written (an audit, 2026-11-29: a client
 * that stopped reading had the whole answer, 20 MB a stream, pile up in the gateway's memory), and lets it go on
 * once the client takes it again; a client held back past the stall timeout is disconnected.
 */
class SseFlowControlTest {

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final Link client = new Link();
    private final Recording completion = new Recording();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    /** The client's connection: a loop that runs only when the test says so, writability the test sets. */
    private static final class Link implements SseStream.ClientLink {
        final Queue<Runnable> loopTasks = new ArrayDeque<>();
        boolean writable = true;
        Runnable onWritable = () -> { };
        int closed;

        @Override
        public Executor loop() {
            return loopTasks::add;
        }

        @Override
        public boolean writable() {
            return writable;
        }

        @Override
        public Runnable onWritable(Runnable action) {
            onWritable = action;
            return () -> onWritable = () -> { };
        }

        @Override
        public void close() {
            closed++;
        }

        void runLoop() {
            Runnable task;
            while ((task = loopTasks.poll()) != null) {
                task.run();
            }
        }
    }

    private static final class Recording implements RunningCompletion {
        final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void cancel() {
            calls.add("cancel");
        }

        @Override
        public void pause() {
            calls.add("pause");
        }

        @Override
        public void resume() {
            calls.add("resume");
        }
    }

    /** The response as the framework reads it: it asks for events when the test says so. */
    private final List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final reactor.core.publisher.BaseSubscriber<byte[]> response = new reactor.core.publisher.BaseSubscriber<>() {
        @Override
        protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
        }

        @Override
        protected void hookOnNext(byte[] event) {
            received.add(new String(event, java.nio.charset.StandardCharsets.UTF_8));
        }
    };

    /** Timers the test runs by hand: each keep-alive look is kept with the delay it asked for. */
    private static final class HandTimers extends java.util.concurrent.ScheduledThreadPoolExecutor {
        final Queue<Runnable> looks = new ArrayDeque<>();
        final List<Long> delaysNanos = new java.util.ArrayList<>();

        HandTimers() {
            super(1);
        }

        @Override
        public java.util.concurrent.ScheduledFuture<?> schedule(Runnable task, long delay,
                java.util.concurrent.TimeUnit unit) {
            looks.add(task);
            delaysNanos.add(unit.toNanos(delay));
            return super.schedule(() -> { }, 1, java.util.concurrent.TimeUnit.DAYS);
        }

        void runNext() {
            looks.remove().run();
        }

        long lastDelayNanos() {
            return delaysNanos.get(delaysNanos.size() - 1);
        }
    }

    private long keepAlives() {
        return received.stream().filter(e -> e.startsWith(": keep-alive")).count();
    }

    /** Timers that never run (the tests that step the stream by hand): no keep-alive, no look again. */
    private static ScheduledExecutorService stopped() {
        ScheduledExecutorService none = Executors.newSingleThreadScheduledExecutor();
        none.shutdownNow();
        return none;
    }

    private SseStream stream(Duration stall, Duration keepAlive) {
        return stream(stall, keepAlive, timers);
    }

    @SuppressWarnings("unchecked")
    private SseStream stream(Duration stall, Duration keepAlive, ScheduledExecutorService timers) {
        SseStream stream = new SseStream(new ChunkWriter(JsonMapper.createDefault(), "chatcmpl-flow", 1, "t/m"),
                new SseSettings(keepAlive, stall), timers, HttpRequest.POST("/v1/chat/completions", ""),
                Clock.systemUTC(), false, client);
        stream.attach(completion);
        stream.onStarted("p");
        ((reactor.core.publisher.Flux<byte[]>) stream.response().join().body()).subscribe(response);
        return stream;
    }

    @Test
    void theProviderIsHeldBackWhileTheResponseHasNotTakenItsShareAndGoesOnOnceItDid() {
        SseStream stream = stream(Duration.ofMinutes(1), Duration.ofHours(1), stopped());
        response.request(1); // the role chunk
        String piece = "x".repeat(1000);
        for (int i = 0; i < 100; i++) { // ~100 KB handed over, none taken yet
            stream.onDelta(piece);
        }
        assertEquals(List.of("pause"), completion.calls, "paused once, past " + SseStream.HOLD_ABOVE + " bytes");
        client.runLoop();
        assertEquals(List.of("pause"), completion.calls, "on the loop, but the response asked for none");

        response.request(Long.MAX_VALUE);
        assertEquals(List.of("pause", "resume"), completion.calls, "taken: going on");
    }

    /**
     * The framework asks for the next event only once the one before is written; a held stream whose response
     * takes nothing for a while, on a writable connection, goes on by itself rather than wait for a keep-alive
     * (measured: a fast reader's stream stopped for a whole keep-alive interval).
     */
    @Test
    void aHeldStreamOnAWritableConnectionLooksAgainSoon() throws Exception {
        SseStream stream = stream(Duration.ofMinutes(1), Duration.ofHours(1));
        String piece = "x".repeat(1000);
        for (int i = 0; i < 100; i++) {
            stream.onDelta(piece);
        }
        client.runLoop();
        Thread.sleep(200); // the response took nothing: a look every 20 ms finds the connection writable
        assertEquals("pause", completion.calls.get(0));
        assertTrue(completion.calls.contains("resume"), completion.calls.toString());
    }

    @Test
    void anUnwritableConnectionHoldsTheProviderBackUntilItIsWritableAgain() {
        SseStream stream = stream(Duration.ofMinutes(1), Duration.ofHours(1), stopped());
        response.request(Long.MAX_VALUE);
        client.writable = false;
        stream.onDelta("a");
        assertEquals(List.of("pause"), completion.calls);
        client.runLoop();
        stream.onDelta("b");
        client.runLoop();
        assertEquals(List.of("pause"), completion.calls, "written to the loop, but the client takes nothing");

        client.writable = true;
        client.onWritable.run();
        assertEquals(List.of("pause", "resume"), completion.calls);
        stream.onDelta("c");
        client.runLoop();
        assertEquals(List.of("pause", "resume"), completion.calls, "no new hold while the client keeps up");
    }

    @Test
    void aClientHeldBackPastTheStallTimeoutIsDisconnected() throws Exception {
        SseStream stream = stream(Duration.ofMillis(100), Duration.ofMillis(40));
        client.writable = false;
        stream.onDelta("a");
        Thread.sleep(400); // keep-alive ticks see the stream held for longer than 100 ms
        assertTrue(client.closed >= 1, "the client that takes nothing is disconnected");
    }

    /**
     * A keep-alive comment is for a quiet stream: text flowing faster than the interval gets none (an audit saw one
     * every interval between tokens a second apart), and the next look is due an interval after the last event, so
     * no quiet stretch outlasts the interval.
     */
    @Test
    void aKeepAliveGoesOutOnlyAfterAWholeQuietInterval() throws Exception {
        HandTimers hourly = new HandTimers();
        try {
            SseStream flowing = stream(Duration.ofMinutes(1), Duration.ofHours(1), hourly);
            response.request(Long.MAX_VALUE);
            assertEquals(TimeUnit.HOURS.toNanos(1), hourly.lastDelayNanos(), "the first look, an interval after the start");
            flowing.onDelta("text");
            client.runLoop();
            hourly.runNext(); // the look comes right after output
            client.runLoop();
            assertEquals(0, keepAlives(), received.toString());
            long next = hourly.lastDelayNanos();
            assertTrue(next > TimeUnit.MINUTES.toNanos(59) && next <= TimeUnit.HOURS.toNanos(1),
                    "the next look is an interval after the last event: " + next);
        } finally {
            hourly.shutdownNow();
        }
    }

    @Test
    void aStreamQuietForTheIntervalGetsAKeepAliveAndTheNextLookAWholeIntervalLater() throws Exception {
        HandTimers fast = new HandTimers();
        try {
            stream(Duration.ofMinutes(1), Duration.ofMillis(1), fast);
            response.request(Long.MAX_VALUE);
            Thread.sleep(5);
            fast.runNext();
            client.runLoop();
            assertEquals(1, keepAlives(), received.toString());
            assertEquals(TimeUnit.MILLISECONDS.toNanos(1), fast.lastDelayNanos());
        } finally {
            fast.shutdownNow();
        }
    }

    @Test
    void aClientThatReadsIsNeverDisconnected() throws Exception {
        stream(Duration.ofMillis(100), Duration.ofMillis(40));
        Thread.sleep(300); // quiet, not held: keep-alives only
        assertEquals(0, client.closed);
    }
}
