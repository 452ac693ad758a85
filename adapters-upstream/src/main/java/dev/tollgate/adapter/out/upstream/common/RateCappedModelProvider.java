package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatRequest;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Upstream adapter: a provider's own request cap ({@code requests-per-minute} in the catalog), kept on this
 * instance with resilience4j's rate limiter. A fixed window is the right rule here — providers count their quotas
 * (RPM tiers) per window — unlike the §8 client limits, which need exact sliding windows. A call over the cap
 * never goes out: it fails as the provider's own 429 would (retryable, rate limited, with the wait until the next
 * window), so the completion falls back to the model's next route, or answers
 * {@code 429 transfer_agent_capacity_reached} with that wait when every route is capped. The failure is delivered
 * on {@code events}, never inside {@link #call}: a caller may not expect an event before {@code call} returns.
 */
public final class RateCappedModelProvider implements ModelProvider {

    private final ModelProvider provider;
    private final AtomicRateLimiter limiter;
    private final long perMinute;
    private final Executor events;

    public RateCappedModelProvider(ModelProvider provider, long requestsPerMinute, Executor events) {
        this(provider, requestsPerMinute, events, System::nanoTime);
    }

    RateCappedModelProvider(ModelProvider provider, long requestsPerMinute, Executor events, LongSupplier nanoTime) {
        if (requestsPerMinute < 1 || requestsPerMinute > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("provider " + provider.name() + ": requests-per-minute must be 1.."
                    + Integer.MAX_VALUE + ", got " + requestsPerMinute);
        }
        this.provider = provider;
        this.perMinute = requestsPerMinute;
        this.events = events;
        this.limiter = new AtomicRateLimiter("provider-" + provider.name(), RateLimiterConfig.custom()
                .limitForPeriod((int) requestsPerMinute)
                .limitRefreshPeriod(Duration.ofMinutes(1))
                .timeoutDuration(Duration.ZERO)
                .build(), nanoTime::getAsLong);
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
        if (limiter.acquirePermission()) {
            return provider.call(route, request, maxTokens, listener);
        }
        Duration wait = Duration.ofNanos(Math.max(1, limiter.getDetailedMetrics().getNanosToWait()));
        events.execute(() -> listener.onFailure(new UpstreamFailure(429, true, true, wait, "provider "
                + provider.name() + " is at its configured cap of " + perMinute + " requests per minute")));
        return () -> {
            // nothing went out
        };
    }
}
