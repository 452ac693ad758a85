package dev.tollgate.adapter.in.http.playground;

import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.adapter.in.http.common.RateLimitHeaders;
import dev.tollgate.adapter.in.http.common.RequestIds;
import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.adapter.in.http.completions.AdmissionDeadline;
import dev.tollgate.adapter.in.http.completions.ChatRequests;
import dev.tollgate.adapter.in.http.completions.CompletionResponses;
import dev.tollgate.adapter.in.http.completions.ModelApiAuthentication;
import dev.tollgate.adapter.in.http.dashboard.DashboardSecurity;
import dev.tollgate.adapter.in.http.keys.ManagementAuthentication;
import dev.tollgate.application.port.in.completions.AdmitPlainRequestUseCase;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.playground.PlaygroundChatUseCase;
import dev.tollgate.application.port.in.playground.ResolvePlaygroundPrincipalUseCase;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.completion.ChatRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
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
import java.util.stream.Collectors;

/**
 * HTTP adapter: {@code POST /v1/public/chat/completions}, the public playground (§4.2, §8.2), with the request,
 * response and SSE shapes of {@code /v1/chat/completions}. Anonymous callers are told apart by a signed browser
 * cookie; in user-billed mode a caller with {@code Authorization: Bearer gp-…} is authenticated like on {@code /v1}
 * (an invalid key is a 401, not a silent fall back to anonymous) and billed to its account; so is the dashboard's
 * playground page for a signed-in user, which sends the session cookie and the session's form token in
 * {@code X-Tollgate-Form-Token} (no live session: 401; a wrong token: 403 — never a silent fall back to anonymous)
 * and is billed through the account's "Dashboard playground" key. With the mode off, both headers are ignored and
 * the request is anonymous. A key in the URL's query is a 401 in either mode, as on {@code /v1}.
 */
@Controller("/v1/public/chat/completions")
public class PlaygroundController {

    private final PlaygroundChatUseCase playground;
    private final ModelApiAuthentication authentication;
    private final PlaygroundPrincipals principals;
    private final CompletionResponses responses;
    private final SourceAddresses sources;
    private final JsonMapper json;
    private final DashboardSecurity dashboard;
    private final ResolvePlaygroundPrincipalUseCase signedIn;
    private final AdmitPlainRequestUseCase refusals;
    private final AdmissionDeadline admissions;

    PlaygroundController(PlaygroundChatUseCase playground, ModelApiAuthentication authentication,
            PlaygroundPrincipals principals, CompletionResponses responses, SourceAddresses sources, JsonMapper json,
            DashboardSecurity dashboard, ResolvePlaygroundPrincipalUseCase signedIn,
            AdmitPlainRequestUseCase refusals, AdmissionDeadline admissions) {
        this.admissions = admissions;
        this.refusals = refusals;
        this.dashboard = dashboard;
        this.signedIn = signedIn;
        this.playground = playground;
        this.authentication = authentication;
        this.principals = principals;
        this.responses = responses;
        this.sources = sources;
        this.json = json;
    }

    @Post
    @Consumes(MediaType.ALL)
    @Produces({MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM, MediaType.ALL})
    CompletableFuture<MutableHttpResponse<?>> complete(HttpRequest<?> request, @Body @Nullable byte[] body) {
        return admissions.run(request, admission -> {
            String requestId = RequestIds.of(request);
            String source = sources.sourceOf(request);
            ApiKeyPrincipal principal = null;
            if (playground.userBilledMode() && request.getHeaders().contains(HttpHeaders.AUTHORIZATION)
                    || ManagementAuthentication.keyInUrl(request)) {
                // A key in the URL is refused in either mode, as on /v1 (G12): the 401 tells a client that leaks
                // its key into URLs (and so into logs) at once, even where a key would not be used.
                principal = authentication.principal(request);
            } else if (playground.userBilledMode()
                    && request.getHeaders().contains(DashboardSecurity.FORM_TOKEN_HEADER)) {
                // The dashboard's playground page, signed in: billed to the account through its playground key.
                principal = signedIn.forSignedIn(dashboard.scriptAccount(request));
            }
            admission.authenticated();
            ApiKeyPrincipal payer = principal;
            TrafficOrigin origin = payer != null ? TrafficOrigin.of(source)
                    : new TrafficOrigin(source, principals.principalOf(request));
            return RateLimitHeaders.countingRefusals(request, () -> payer != null
                    ? refusals.admitPlainRequest(payer, origin) : playground.countRefusedAnonymous(origin), () -> {
                        JsonObjectBody fields = JsonObjectBody.parseDeclared(request, body);
                        ChatRequest chat;
                        try {
                            chat = ChatRequests.parse(fields, json);
                        } catch (ModelNotFoundException unknown) {
                            // An id no model can have: an anonymous visitor has no key to list models with, so the
                            // refusal names the ones offered here, as for any other model it does not offer.
                            throw payer != null ? unknown : unknown.offering(playground.freeModels().stream()
                                    .map(ModelId::value).collect(Collectors.joining(", ")));
                        }
                        return responses.respond(request, chat, ChatRequests.usageRequested(fields), admission,
                                observer -> payer != null
                                        ? playground.startUserBilled(payer, chat, requestId, origin, observer)
                                        : playground.startAnonymous(chat, requestId, origin, observer));
                    });
        });
    }
}
