package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.completion.ChatRequest;

/** Use case: a chat completion, billed from the prepaid balance within the key's limit ({@code POST /v1/chat/completions}). */
public interface CompleteChatUseCase {

    /**
     * Checks the request, passes it through the traffic limits (§8.1), holds its maximum cost, and starts it;
     * events then reach {@code observer}.
     *
     * @throws ModelNotFoundException          unknown model (nothing held, nothing sent upstream)
     * @throws UnsupportedCapabilityException  no provider of the model supports a requested feature
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException a traffic limit refused it
     * @throws InsufficientQuotaException      the hold does not fit the balance or the key's limit
     * @throws dev.tollgate.domain.shared.DomainRuleViolation max_tokens or the prompt exceed the model's limits
     */
    RunningCompletion start(ApiKeyPrincipal principal, ChatRequest request, String requestId,
            TrafficOrigin origin, CompletionObserver observer);
}
