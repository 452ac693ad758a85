package dev.tollgate.application.port.in.playground;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.completion.ChatRequest;
import java.util.List;

/**
 * Use case: a chat completion on the public playground ({@code POST /v1/public/chat/completions}, §4.2, §8.2).
 * Prompts are sanitised of personal data before they go upstream, in both modes.
 */
public interface PlaygroundChatUseCase {

    /**
     * Anonymous: one of the playground's free models, paid by the operator, within the §8.2 limits of the browser
     * principal, the source IP and all playground traffic.
     *
     * @throws dev.tollgate.application.port.in.completions.ModelNotFoundException a model the playground does not
     *                                                                            offer
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException a §8.2 limit refused it
     */
    RunningCompletion startAnonymous(ChatRequest request, String requestId, TrafficOrigin origin,
            CompletionObserver observer);

    /**
     * User-billed mode: any model, billed to the caller's account like {@code /v1}, within the §8.1 buckets of
     * the key plus the playground's in-flight limit per user.
     *
     * @throws IllegalStateException when user-billed mode is off
     */
    RunningCompletion startUserBilled(ApiKeyPrincipal principal, ChatRequest request, String requestId,
            TrafficOrigin origin, CompletionObserver observer);

    /**
     * Counts an anonymous request refused for its content (a 400 or 404) in the §8.2 buckets of its browser and
     * source IP and of all playground traffic, as a request without tokens, so that invalid requests are not free
     * of the limits; what to report in its rate-limit headers.
     *
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException a §8.2 limit is exhausted (the
     *                                                                            refusal becomes a 429)
     */
    RateLimitReport countRefusedAnonymous(TrafficOrigin origin);

    boolean userBilledMode();

    /** The models anonymous visitors may use, in the configured order. */
    List<ModelId> freeModels();
}
