package dev.tollgate.adapter.in.http.completions;

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
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * HTTP adapter: one SSE response (§6). The 200 is committed only when the upstream's first output arrives (or when
 * the first keep-alive is due), so a failure before any output still gets its real status and error body; after the
 * commit a failure is one terminal {@code data: {"error": …}} event (§6.7). Keep-alive comments
 * ({@code : keep-alive}) flow while the stream is quiet. A client that disconnects cancels the completion, which
 * cancels the upstream call and bills what was delivered.
 */
final class SseStream implements CompletionObserver {

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);

    private final ChunkWriter chunks;
    private final HttpRequest<?> request;
    private final Clock clock;
    private final Sinks.Many<byte[]> sink = Sinks.many().unicast().onBackpressureBuffer();
    private final CompletableFuture<MutableHttpResponse<?>> response = new CompletableFuture<>();
    private final SseSettings settings;
    private final ScheduledExecutorService timers;
    /** The client asked for the final usage chunk ({@code stream_options.include_usage}). */
    private final boolean usageRequested;
    /** The keep-alive timer; none until the completion starts. */
    private Future<?> keepAlive = CompletableFuture.completedFuture(null);
    private Runnable unwatch = () -> { };
    private RunningCompletion completion;
    private boolean committed;
    private boolean roleSent;
    private boolean ended;
    /** Log probabilities waiting for the text they belong to ({@code logprobs.content} entries), or null. */
    private List<Object> pendingLogprobs;

    /**
     * @param timers runs the keep-alive timer; a timer queue that always holds an earlier deadline (see the
     *               request timers' heartbeat in bootstrap) takes a new one without waking its thread, which
     *               a per-stream timer on an idle queue did once per stream, just before its first token
     */
    SseStream(ChunkWriter chunks, SseSettings settings, ScheduledExecutorService timers, HttpRequest<?> request,
            Clock clock, boolean usageRequested) {
        this.chunks = chunks;
        this.usageRequested = usageRequested;
        this.request = request;
        this.clock = clock;
        this.settings = settings;
        this.timers = timers;
    }

    /** Called once the completion started (so a refused request never starts a timer). */
    synchronized void attach(RunningCompletion running) {
        this.completion = running;
        if (!ended) {
            long every = settings.keepAlive().toNanos();
            try {
                keepAlive = timers.scheduleAtFixedRate(this::keepAlive, every, every, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                // The process is stopping: the stream ends with it, no keep-alive needed.
            }
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

    private synchronized void keepAlive() {
        if (ended) {
            return;
        }
        commit();
        sink.tryEmitNext(KEEP_ALIVE);
    }

    private void commit() {
        if (committed) {
            return;
        }
        committed = true;
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
            running = completion;
        }
        if (running != null) {
            running.cancel();
        }
    }

    private void data(String payload) {
        sink.tryEmitNext(("data: " + payload + "\n\n").getBytes(StandardCharsets.UTF_8));
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
        sink.tryEmitComplete();
    }
}
