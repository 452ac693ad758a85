package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.ClientConnection;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.adapter.in.http.common.RequestIds;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompleteChatUseCase;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.json.JsonMapper;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP adapter: {@code POST /v1/chat/completions} as JSON or, with {@code "stream": true} in the body (never
 * decided from {@code Accept}), as an SSE stream shaped the way the openai and OpenRouter SDKs require
 * (sdk-contract.md).
 */
@Controller("/v1/chat/completions")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ChatCompletionsController {

    private final ModelApiAuthentication authentication;
    private final CompleteChatUseCase completeChat;
    private final JsonMapper json;
    private final Clock clock;
    private final SseSettings sse;
    private final CompletionMetrics metrics;

    ChatCompletionsController(ModelApiAuthentication authentication, CompleteChatUseCase completeChat,
            JsonMapper json, Clock clock, SseSettings sse, CompletionMetrics metrics) {
        this.metrics = metrics;
        this.authentication = authentication;
        this.completeChat = completeChat;
        this.json = json;
        this.clock = clock;
        this.sse = sse;
    }

    @Post
    @Consumes(MediaType.ALL)
    @Produces({MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM, MediaType.ALL})
    CompletableFuture<MutableHttpResponse<?>> complete(HttpRequest<?> request, @Body @Nullable byte[] body) {
        ApiKeyPrincipal principal = authentication.principal(request);
        ChatRequest chat = ChatRequests.parse(JsonObjectBody.parse(body), json);
        String requestId = RequestIds.of(request);
        ChunkWriter chunks = new ChunkWriter(json, "chatcmpl-" + requestId.substring(4),
                clock.instant().getEpochSecond(), chat.model().value());
        if (chat.stream()) {
            SseStream stream = new SseStream(chunks, sse, request, clock);
            stream.attach(completeChat.start(principal, chat, requestId,
                    metrics.observe(chat.model().value(), true, stream)));
            stream.watch(ClientConnection.onClose(request, stream::clientDisconnected));
            return stream.response();
        }
        JsonCollector collector = new JsonCollector(chunks, request, clock);
        RunningCompletion running = completeChat.start(principal, chat, requestId,
                metrics.observe(chat.model().value(), false, collector));
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
        private final ToolCallAssembler toolCalls = new ToolCallAssembler();
        private final CompletableFuture<MutableHttpResponse<?>> response = new CompletableFuture<>();

        JsonCollector(ChunkWriter chunks, HttpRequest<?> request, Clock clock) {
            this.chunks = chunks;
            this.request = request;
            this.clock = clock;
        }

        CompletableFuture<MutableHttpResponse<?>> response() {
            return response;
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
        public void onToolCallDelta(String toolCallsJson) {
            toolCalls.add(chunks.read(toolCallsJson));
        }

        @Override
        public void onComplete(CompletionResult result) {
            response.complete(HttpResponse.ok(chunks.completion(text.toString(), toolCalls.toolCalls(), result))
                    .contentType(MediaType.APPLICATION_JSON_TYPE));
        }

        @Override
        public void onFailure(CompletionFailure failure) {
            response.complete(failureResponse(request, failure, clock));
        }
    }

    static MutableHttpResponse<?> failureResponse(HttpRequest<?> request, CompletionFailure failure, Clock clock) {
        MutableHttpResponse<?> response = ApiErrors.respond(request, HttpStatus.valueOf(failure.status()),
                failure.message(), new ApiErrors.ModelError(failure.type(), failure.code(), null), clock);
        if (failure.retryAfterSeconds() > 0) {
            response.header("Retry-After", Long.toString(failure.retryAfterSeconds()));
        }
        return response;
    }
}
