package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.ClientConnection;
import dev.tollgate.adapter.in.http.common.ClientWritability;
import dev.tollgate.adapter.in.http.common.RateLimitHeaders;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.quota.RateLimitReport;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * HTTP adapter: one SSE response (§6). The 200 is committed only when the upstream's first output arrives (or when
 * the first keep-alive is due), so a failure before any output still gets its real status and error body; after the
 * commit a failure is one terminal {@code data: {"error": …}} event (§6.7). Keep-alive comments
 * ({@code : keep-alive}) flow while the stream is quiet. A client that disconnects cancels the completion, which
 * cancels the upstream call and bills what was delivered.
 *
 * <p>Flow control: events are handed to the response on the client connection's event loop, where it writes them at
 * once. The completion is paused — the provider's transport holds the rest back — while more than
 * {@value #HOLD_ABOVE} bytes wait for that loop (a provider can deliver faster than the loop writes) or the connection
 * is unwritable (more than Netty's high-water mark waits to be sent), and goes on once both are down again. A client
 * held back that long without a sign of reading is disconnected after the stall timeout. Without this a client that
 * stopped reading had the whole answer pile up in memory (an audit, 2026-11-29: 25 such streams of 20 MB, 3.2 GB).
 */
final class SseStream implements CompletionObserver {

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);
    /** Bytes waiting for the connection to take them above which the completion is paused. */
    static final long HOLD_ABOVE = 64 * 1024;
    /** Bytes waiting below which (with the connection writable) a paused completion goes on. */
    static final long RELEASE_BELOW = 16 * 1024;

    private final ChunkWriter chunks;
    private final HttpRequest<?> request;
    private final Clock clock;
    /**
     * The response's events wait here until the response asks for them (it asks while the connection is writable);
     * taking one out counts it as taken.
     */
    private final Sinks.Many<byte[]> sink = Sinks.many().unicast().onBackpressureBuffer(new Waiting());
    private final CompletableFuture<MutableHttpResponse<?>> response = new CompletableFuture<>();
    private final SseSettings settings;
    private final ScheduledExecutorService timers;
    /** The request's wait for the database before it runs. */
    private final AdmissionDeadline.Admission admission;
    /** The client asked for the final usage chunk ({@code stream_options.include_usage}). */
    private final boolean usageRequested;
    /** The keep-alive timer; none until the completion starts. */
    private Future<?> keepAlive = CompletableFuture.completedFuture(null);
    private Runnable unwatch = () -> { };
    /** Volatile: the connection's side reads it to resume, without this stream's lock. */
    private volatile RunningCompletion completion;
    private boolean committed;
    private boolean roleSent;
    private boolean ended;
    /** Log probabilities waiting for the text they belong to ({@code logprobs.content} entries), or null. */
    private List<Object> pendingLogprobs;
    /**
     * Orders pauses and resumes (taken after this stream's own lock, never before it: the connection's side takes
     * only this one, so it never waits for a thread that delivers output).
     */
    private final Object flow = new Object();
    /** Bytes emitted that the connection's event loop has not written yet. */
    private final AtomicLong untaken = new AtomicLong();
    /** The client connection's event loop: every event reaches the response there, in order. */
    private final Executor loop;
    private final ClientLink client;
    private boolean holding; // guarded by flow
    private long holdingSinceNanos; // guarded by flow
    /** When an event (output or keep-alive) was last handed to the response. */
    private volatile long lastEmittedNanos = System.nanoTime();
    /** When the response last took an event (a sign the client reads). */
    private volatile long lastTakenNanos = System.nanoTime();
    /** How often a held stream looks again whether it may go on. */
    static final long LOOK_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Stops watching the connection's writability; released when the stream ends. */
    private Runnable unwatchWritable = () -> { };

    /**
     * @param timers runs the keep-alive timer; a timer queue that always holds an earlier deadline (see the
     *               request timers' heartbeat in bootstrap) takes a new one without waking its thread, which
     *               a per-stream timer on an idle queue did once per stream, just before its first token
     */
    SseStream(ChunkWriter chunks, SseSettings settings, ScheduledExecutorService timers, HttpRequest<?> request,
            Clock clock, boolean usageRequested, AdmissionDeadline.Admission admission) {
        this(chunks, settings, timers, request, clock, usageRequested, ClientLink.of(request), admission);
    }

    /** A stream admitted without a deadline (tests). */
    SseStream(ChunkWriter chunks, SseSettings settings, ScheduledExecutorService timers, HttpRequest<?> request,
            Clock clock, boolean usageRequested) {
        this(chunks, settings, timers, request, clock, usageRequested, AdmissionDeadline.Admission.unbounded());
    }

    /** A stream admitted without a deadline, on a stand-in connection (tests). */
    SseStream(ChunkWriter chunks, SseSettings settings, ScheduledExecutorService timers, HttpRequest<?> request,
            Clock clock, boolean usageRequested, ClientLink client) {
        this(chunks, settings, timers, request, clock, usageRequested, client,
                AdmissionDeadline.Admission.unbounded());
    }

    private SseStream(ChunkWriter chunks, SseSettings settings, ScheduledExecutorService timers,
            HttpRequest<?> request, Clock clock, boolean usageRequested, ClientLink client,
            AdmissionDeadline.Admission admission) {
        this.admission = admission;
        this.chunks = chunks;
        this.usageRequested = usageRequested;
        this.request = request;
        this.clock = clock;
        this.settings = settings;
        this.timers = timers;
        this.client = client;
        this.loop = client.loop();
    }

    /** The client's connection as the stream's flow control sees it: a Netty connection, or a test's stand-in. */
    interface ClientLink {
        /** Where what is handed to the response is written to the connection without a hand-off. */
        Executor loop();

        /** Whether the connection takes more now (not past its high-water mark). */
        boolean writable();

        /** Runs {@code action} on the loop whenever the connection becomes writable again; returns the stop. */
        Runnable onWritable(Runnable action);

        /** Disconnects the client. */
        void close();

        static ClientLink of(HttpRequest<?> request) {
            Executor loop = ClientWritability.eventLoopOf(request);
            return new ClientLink() {
                @Override
                public Executor loop() {
                    return loop;
                }

                @Override
                public boolean writable() {
                    return ClientWritability.writable(request);
                }

                @Override
                public Runnable onWritable(Runnable action) {
                    return ClientWritability.onWritable(request, action);
                }

                @Override
                public void close() {
                    ClientConnection.close(request);
                }
            };
        }
    }

    /** Called once the completion started (so a refused request never starts a timer). */
    synchronized void attach(RunningCompletion running) {
        this.completion = running;
        synchronized (flow) {
            if (holding) {
                running.pause(); // held before the completion was known
            }
        }
        if (!ended) {
            keepAliveIn(settings.keepAlive().toNanos());
        }
    }

    /** Schedules the next keep-alive look (with this stream's lock held). */
    private void keepAliveIn(long nanos) {
        try {
            keepAlive = timers.schedule(this::keepAlive, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            // The process is stopping: the stream ends with it, no keep-alive needed.
        }
    }

    /** Keeps the handle that stops watching the client's connection; released when the stream ends. */
    synchronized void watch(Runnable unwatch) {
        if (ended) {
            unwatch.run();
        } else {
            this.unwatch = unwatch;
        }
    }

    /** The client's connection closed: stop the completion (billing what was delivered). */
    void clientDisconnected() {
        clientLeft();
    }

    CompletableFuture<MutableHttpResponse<?>> response() {
        return response;
    }

    /**
     * A keep-alive comment goes out only when the stream has been quiet for the whole interval (text flowing at a
     * token a second needs none); the next look is due an interval after the last event, so no quiet stretch lasts
     * longer than the interval. Each look also checks whether a held-back client stalled.
     */
    private synchronized void keepAlive() {
        if (ended) {
            return;
        }
        long every = settings.keepAlive().toNanos();
        if (stalled()) {
            // The client took nothing of a held-back stream for the stall timeout: it is disconnected, which
            // cancels the completion (billed what the provider sent) and frees what was waiting for it.
            client.close();
            keepAliveIn(every);
            return;
        }
        long quiet = System.nanoTime() - lastEmittedNanos;
        if (quiet >= every) {
            commit();
            emit(KEEP_ALIVE);
            quiet = 0;
        }
        keepAliveIn(every - quiet);
    }

    private boolean stalled() {
        synchronized (flow) {
            return holding && System.nanoTime() - holdingSinceNanos > settings.clientStallTimeout().toNanos();
        }
    }

    private void emit(byte[] bytes) {
        lastEmittedNanos = System.nanoTime();
        long waiting = untaken.addAndGet(bytes.length);
        loop.execute(() -> sink.tryEmitNext(bytes)); // on the loop: the response writes it there when it asks
        if (waiting > HOLD_ABOVE || !client.writable()) {
            synchronized (flow) {
                if (!holding) {
                    holding = true;
                    holdingSinceNanos = System.nanoTime();
                    if (completion != null) {
                        completion.pause();
                    }
                    lookAgainLater();
                }
            }
        }
    }

    /**
     * The queue of events the response has not asked for yet (Reactor's unicast sink: one producer, the connection's
     * loop, and one consumer), counting out what is taken.
     */
    private final class Waiting extends java.util.AbstractQueue<byte[]> {
        private final java.util.Queue<byte[]> events = new java.util.concurrent.ConcurrentLinkedQueue<>();

        @Override
        public boolean offer(byte[] event) {
            return events.offer(event);
        }

        @Override
        public byte[] poll() {
            byte[] event = events.poll();
            if (event != null) {
                taken(event.length);
            }
            return event;
        }

        @Override
        public byte[] peek() {
            return events.peek();
        }

        @Override
        public int size() {
            return events.size();
        }

        @Override
        public java.util.Iterator<byte[]> iterator() {
            return events.iterator();
        }
    }

    /**
     * A held stream looks again every {@link #LOOK_AGAIN_NANOS} whether it may go on: the framework asks for the next
     * event only once the one before is written, and a stream held with events waiting could otherwise wait for the
     * next keep-alive (measured: a fast reader's stream stopped for a whole keep-alive interval, a few times per 4 MB).
     * Goes on when the connection is writable and the events waiting are few, or nothing was taken for a look's time.
     */
    private void lookAgainLater() {
        try {
            timers.schedule(this::lookAgain, LOOK_AGAIN_NANOS, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            // the process is stopping: the stream ends with it
        }
    }

    private void lookAgain() {
        synchronized (flow) {
            if (!holding) {
                return;
            }
            if (client.writable() && (untaken.get() < RELEASE_BELOW
                    || System.nanoTime() - lastTakenNanos >= LOOK_AGAIN_NANOS)) {
                goOn();
                return;
            }
        }
        lookAgainLater();
    }

    /** The response took {@code bytes} of the stream to write them (this stream's lock is not held). */
    private void taken(int bytes) {
        lastTakenNanos = System.nanoTime();
        if (untaken.addAndGet(-bytes) < RELEASE_BELOW) {
            resumeIfFree();
        }
    }

    /** The client's connection can take more (on its event loop: this stream's lock is not held). */
    private void writableAgain() {
        resumeIfFree();
    }

    private void resumeIfFree() {
        synchronized (flow) {
            if (holding && untaken.get() < RELEASE_BELOW && client.writable()) {
                goOn();
            }
        }
    }

    /** Ends the hold: the completion goes on. Called with {@link #flow} held. */
    private void goOn() {
        holding = false;
        RunningCompletion running = completion;
        if (running != null) {
            running.resume();
        }
    }

    private void commit() {
        if (committed) {
            return;
        }
        committed = true;
        unwatchWritable = client.onWritable(this::writableAgain);
        Flux<byte[]> body = sink.asFlux().doOnCancel(this::clientLeft);
        response.complete(HttpResponse.ok(body).contentType(MediaType.TEXT_EVENT_STREAM_TYPE)
                .header("Cache-Control", "no-cache").header("X-Accel-Buffering", "no"));
    }

    private void clientLeft() {
        RunningCompletion running;
        synchronized (this) {
            ended = true;
            keepAlive.cancel(false);
            unwatch.run();
            unwatchWritable.run();
            running = completion;
        }
        if (running != null) {
            running.cancel();
        }
    }

    private void data(String payload) {
        emit(("data: " + payload + "\n\n").getBytes(StandardCharsets.UTF_8));
    }

    private void sendRole() {
        if (!roleSent) {
            roleSent = true;
            data(chunks.roleChunk());
        }
    }

    @Override
    public void onAdmitted(RateLimitReport report) {
        RateLimitHeaders.remember(request, report);
        admission.resume();
    }

    @Override
    public boolean onReady() {
        return admission.ready();
    }

    @Override
    public boolean clientGone() {
        return admission.clientGone();
    }

    @Override
    public synchronized void onStarted(String provider) {
        if (ended) {
            return;
        }
        commit();
        sendRole();
    }

    @Override
    public synchronized void onLogprobs(String contentJson) {
        if (!ended) {
            // Sent with the text they belong to, which comes next.
            if (pendingLogprobs == null) {
                pendingLogprobs = new ArrayList<>();
            }
            pendingLogprobs.addAll(chunks.readList(contentJson));
        }
    }

    @Override
    public synchronized void onDelta(String text) {
        if (ended) {
            return;
        }
        commit();
        sendRole();
        data(chunks.textChunk(text, pendingLogprobs));
        pendingLogprobs = null;
    }

    @Override
    public synchronized void onText(AnswerChannel channel, String text) {
        if (ended) {
            return;
        }
        commit();
        sendRole();
        data(chunks.textChunk(channel, text));
    }

    @Override
    public synchronized void onToolCallDelta(String toolCallsJson) {
        if (ended) {
            return;
        }
        commit();
        sendRole();
        data(chunks.toolCallChunk(toolCallsJson));
    }

    @Override
    public synchronized void onComplete(CompletionResult result) {
        if (ended) {
            return;
        }
        commit();
        sendRole();
        if (pendingLogprobs != null) {
            data(chunks.logprobsChunk(pendingLogprobs));
            pendingLogprobs = null;
        }
        data(chunks.finishChunk(result.finishReason()));
        if (usageRequested) {
            data(chunks.usageChunk(result));
        }
        data("[DONE]");
        end();
    }

    @Override
    public synchronized void onFailure(CompletionFailure failure) {
        if (ended) {
            return;
        }
        if (!committed) {
            ended = true;
            keepAlive.cancel(false);
            unwatch.run();
            unwatchWritable.run();
            response.complete(CompletionResponses.failureResponse(request, failure, clock));
            return;
        }
        data(chunks.errorEvent(failure));
        end();
    }

    private void end() {
        ended = true;
        keepAlive.cancel(false);
        unwatch.run();
        unwatchWritable.run();
        loop.execute(sink::tryEmitComplete); // after the events before it
    }
}
