package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.quota.RateLimitReport;

/**
 * Use case: count a {@code /v1} request that holds no slot and costs nothing — a model list ({@code GET /v1/models}),
 * or a chat completion refused for its content (400, 404) — in the caller's §8.1 request buckets and distinct sets.
 */
public interface AdmitPlainRequestUseCase {

    /** @throws RateLimitExceededException when a bucket is exhausted */
    RateLimitReport admitPlainRequest(ApiKeyPrincipal principal, TrafficOrigin origin);
}
