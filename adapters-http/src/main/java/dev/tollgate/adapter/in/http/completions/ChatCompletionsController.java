package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.adapter.in.http.common.RateLimitHeaders;
import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.adapter.in.http.common.RequestIds;
import dev.tollgate.application.port.in.completions.AdmitPlainRequestUseCase;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompleteChatUseCase;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.json.JsonMapper;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP adapter: {@code POST /v1/chat/completions} — a regular key (§5), a checked body (§2.3), the caller's source
 * address for the traffic limits (§8.1), then the completion answered as JSON or SSE ({@link CompletionResponses}).
 * A request refused for its content (400, 404) still counts in the caller's request buckets, like a model list: an
 * authenticated client cannot send invalid requests without limit, and its 400 carries the {@code x-ratelimit-*}
 * headers too (or becomes the 429 of an exhausted bucket). The request runs on the blocking executor and waits at
 * most the admission deadline for the database ({@link AdmissionDeadline}).
 */
@Controller("/v1/chat/completions")
public class ChatCompletionsController extends CrossOriginApi {

    private final ModelApiAuthentication authentication;
    private final CompleteChatUseCase completeChat;
    private final AdmitPlainRequestUseCase refusals;
    private final CompletionResponses responses;
    private final JsonMapper json;
    private final SourceAddresses sources;
    private final AdmissionDeadline admissions;

    ChatCompletionsController(ModelApiAuthentication authentication, CompleteChatUseCase completeChat,
            AdmitPlainRequestUseCase refusals, CompletionResponses responses, JsonMapper json,
            SourceAddresses sources, AdmissionDeadline admissions) {
        this.admissions = admissions;
        this.authentication = authentication;
        this.completeChat = completeChat;
        this.refusals = refusals;
        this.responses = responses;
        this.json = json;
        this.sources = sources;
    }

    @Post
    @Consumes(MediaType.ALL)
    @Produces({MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM, MediaType.ALL})
    CompletableFuture<MutableHttpResponse<?>> complete(HttpRequest<?> request, @Body @Nullable byte[] body) {
        return admissions.run(request, admission -> {
            ApiKeyPrincipal principal = authentication.principal(request);
            admission.authenticated();
            String requestId = RequestIds.of(request);
            TrafficOrigin origin = TrafficOrigin.of(sources.sourceOf(request));
            return RateLimitHeaders.countingRefusals(request, () -> refusals.admitPlainRequest(principal, origin),
                    () -> {
                        JsonObjectBody fields = JsonObjectBody.parseDeclared(request, body);
                        ChatRequest chat = ChatRequests.parse(fields, json);
                        return responses.respond(request, chat, ChatRequests.usageRequested(fields), admission,
                                observer -> completeChat.start(principal, chat, requestId, origin, observer));
                    });
        });
    }
}
