package dev.tollgate.application.port.in.traffic;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.quota.Refusal;

/**
 * §7.2 {@code rate_limit_exceeded}: a request, burst, concurrency, distinct-source or cooldown check refused the
 * request (§8). Temporary: the client may retry after {@link Refusal#retryAfterSeconds()}.
 */
public final class RateLimitExceededException extends UseCaseException {

    private final transient Refusal refusal;
    private final transient RateLimitReport report;

    public RateLimitExceededException(Refusal refusal, RateLimitReport report) {
        super(refusal.message());
        this.refusal = refusal;
        this.report = report;
    }

    public Refusal refusal() {
        return refusal;
    }

    public RateLimitReport report() {
        return report;
    }

    @Override
    public String code() {
        return "rate_limit_exceeded";
    }
}
