package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.quota.RateLimitReport;

/** Use case: count a model-list request ({@code GET /v1/models}) in the caller's §8.1 request buckets. */
public interface AdmitModelListUseCase {

    /** @throws RateLimitExceededException when a bucket is exhausted */
    RateLimitReport admitModelList(ApiKeyPrincipal principal, TrafficOrigin origin);
}
