package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.ClientConnection;
import dev.tollgate.adapter.in.http.common.RateLimitHeaders;
import dev.tollgate.adapter.in.http.common.RequestIds;
import dev.tollgate.adapter.in.http.common.UseCaseExceptionHandler;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.quota.RateLimitReport;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * HTTP adapter: answers a chat completion as JSON or, with {@code "stream": true} in the body (never decided from
 * {@code Accept}), as an SSE stream shaped the way the openai and OpenRouter SDKs require (sdk-contract.md) — for
 * every route that serves completions ({@code /v1/chat/completions}, the public playground).
 */
@Singleton
public final class CompletionResponses {

    private final JsonMapper json;
    private final Clock clock;
    private final SseSettings sse;
    private final ScheduledExecutorService timers;
    private final CompletionMetrics metrics;

    /** @param timers the running requests' timers (bootstrap's {@code request-timers}): SSE keep-alives run there */
    public CompletionResponses(JsonMapper json, Clock clock, SseSettings sse,
            @Named("request-timers") ScheduledExecutorService timers, CompletionMetrics metrics) {
        this.json = json;
        this.clock = clock;
        this.sse = sse;
        this.timers = timers;
        this.metrics = metrics;
    }

    /**
     * Starts the completion with {@code start} (given the observer that answers the client) and answers; a stream
     * ends with a usage chunk when the client asked for one ({@code stream_options.include_usage}).
     */
    public CompletableFuture<MutableHttpResponse<?>> respond(HttpRequest<?> request, ChatRequest chat,
            boolean usageRequested, AdmissionDeadline.Admission admission,
            Function<CompletionObserver, RunningCompletion> start) {
        String requestId = RequestIds.of(request);
        ChunkWriter chunks = new ChunkWriter(json, "chatcmpl-" + requestId.substring(4),
                clock.instant().getEpochSecond(), chat.model().value());
        if (chat.stream()) {
            SseStream stream = new SseStream(chunks, sse, timers, request, clock, usageRequested, admission);
            stream.attach(start.apply(metrics.observe(chat.model().value(), true, stream)));
            stream.watch(ClientConnection.onClose(request, stream::clientDisconnected));
            return stream.response();
        }
        JsonCollector collector = new JsonCollector(chunks, request, clock, admission);
        RunningCompletion running = start.apply(metrics.observe(chat.model().value(), false, collector));
        // G13: a client that leaves stops the upstream and is billed what was produced until then.
        Runnable unwatch = ClientConnection.onClose(request, running::cancel);
        collector.response().whenComplete((response, error) -> unwatch.run());
        return collector.response();
    }

    /** Gathers a non-streaming completion into one JSON body. */
    private static final class JsonCollector implements CompletionObserver {
        private final ChunkWriter chunks;
        private final HttpRequest<?> request;
        private final Clock clock;
        private final StringBuilder text = new StringBuilder();
        private final StringBuilder refusal = new StringBuilder();
        private final StringBuilder reasoning = new StringBuilder();
        private final ToolCallAssembler toolCalls = new ToolCallAssembler();
        /** The log probabilities of the answer, in order; null unless the provider sent some. */
        private List<Object> logprobs;
        private final CompletableFuture<MutableHttpResponse<?>> response = new CompletableFuture<>();
        private final AdmissionDeadline.Admission admission;

        JsonCollector(ChunkWriter chunks, HttpRequest<?> request, Clock clock, AdmissionDeadline.Admission admission) {
            this.admission = admission;
            this.chunks = chunks;
            this.request = request;
            this.clock = clock;
        }

        CompletableFuture<MutableHttpResponse<?>> response() {
            return response;
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
        public void onStarted(String provider) {
            // nothing to send before the whole answer
        }

        @Override
        public void onDelta(String delta) {
            text.append(delta);
        }

        @Override
        public void onText(AnswerChannel channel, String delta) {
            (channel == AnswerChannel.REFUSAL ? refusal : reasoning).append(delta);
        }

        @Override
        public void onToolCallDelta(String toolCallsJson) {
            toolCalls.add(chunks.read(toolCallsJson));
        }

        @Override
        public void onLogprobs(String contentJson) {
            if (logprobs == null) {
                logprobs = new ArrayList<>();
            }
            logprobs.addAll(chunks.readList(contentJson));
        }

        @Override
        public void onComplete(CompletionResult result) {
            response.complete(HttpResponse.ok(chunks.completion(new ChunkWriter.Answer(text.toString(),
                    refusal.toString(), reasoning.toString(), toolCalls.toolCalls()), logprobs, result))
                    .contentType(MediaType.APPLICATION_JSON_TYPE));
        }

        @Override
        public void onFailure(CompletionFailure failure) {
            response.complete(failureResponse(request, failure, clock));
        }
    }

    static MutableHttpResponse<?> failureResponse(HttpRequest<?> request, CompletionFailure failure, Clock clock) {
        MutableHttpResponse<?> response = ApiErrors.respond(request, HttpStatus.valueOf(failure.status()),
                failure.message(), new ApiErrors.ModelError(failure.type(), failure.code(), failure.param()), clock);
        if (failure.retryAfterSeconds() > 0) {
            UseCaseExceptionHandler.retryAfter(response, failure.retryAfterSeconds());
        }
        // A provider that failed part-way through a JSON answer is billed for what it produced, and the 502 still
        // says nothing against retrying: §7.2's client action for a 5xx is a retry with bounded backoff.
        return response;
    }
}
