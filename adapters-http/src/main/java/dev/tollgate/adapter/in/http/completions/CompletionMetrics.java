package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.domain.quota.RateLimitReport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * HTTP adapter: completion metrics for the Prometheus endpoint. {@code tollgate_completions_total}
 * (model, provider, outcome, stream), {@code tollgate_completion_duration_seconds} and
 * {@code tollgate_completion_ttft_seconds}, {@code tollgate_tokens_total} (model, kind),
 * {@code tollgate_spend_micro_usd_total} (model), {@code tollgate_completion_failures_total} (code) and the
 * gauge {@code tollgate_holds_open}. HTTP latency per route comes from Micronaut's {@code http_server_requests}.
 */
@Singleton
public final class CompletionMetrics {

    private final MeterRegistry registry;

    CompletionMetrics(MeterRegistry registry, BillingLedger billing) {
        this.registry = registry;
        Gauge.builder("tollgate.holds.open", billing, ledger -> {
            try {
                return ledger.openHolds();
            } catch (RuntimeException e) {
                return Double.NaN;
            }
        }).description("Prepaid holds currently open (requests in flight or not yet swept)").register(registry);
    }

    /** Wraps an observer so that the completion's outcome is counted. */
    CompletionObserver observe(String model, boolean stream, CompletionObserver delegate) {
        long start = System.nanoTime();
        return new CompletionObserver() {
            @Override
            public void onAdmitted(RateLimitReport report) {
                delegate.onAdmitted(report);
            }

            @Override
            public void onStarted(String provider) {
                Timer.builder("tollgate.completion.ttft").description("Time to the upstream's first byte")
                        .tag("model", model).tag("provider", provider).register(registry)
                        .record(Duration.ofNanos(System.nanoTime() - start));
                delegate.onStarted(provider);
            }

            @Override
            public void onDelta(String text) {
                delegate.onDelta(text);
            }

            @Override
            public void onToolCallDelta(String toolCallsJson) {
                delegate.onToolCallDelta(toolCallsJson);
            }

            @Override
            public void onComplete(CompletionResult result) {
                Counter.builder("tollgate.completions").tag("model", model).tag("provider", result.provider())
                        .tag("outcome", "completed").tag("stream", Boolean.toString(stream)).register(registry)
                        .increment();
                Timer.builder("tollgate.completion.duration").tag("model", model).register(registry)
                        .record(Duration.ofNanos(System.nanoTime() - start));
                Counter.builder("tollgate.tokens").tag("model", model).tag("kind", "prompt").register(registry)
                        .increment(result.usage().promptTokens());
                Counter.builder("tollgate.tokens").tag("model", model).tag("kind", "completion").register(registry)
                        .increment(result.usage().completionTokens());
                Counter.builder("tollgate.spend.micro.usd").description("Charged spend in micro-USD")
                        .tag("model", model).register(registry).increment(result.charged().micros());
                delegate.onComplete(result);
            }

            @Override
            public void onFailure(CompletionFailure failure) {
                Counter.builder("tollgate.completions").tag("model", model).tag("provider", "none")
                        .tag("outcome", "failed").tag("stream", Boolean.toString(stream)).register(registry)
                        .increment();
                Counter.builder("tollgate.completion.failures").tag("code", failure.code()).register(registry)
                        .increment();
                delegate.onFailure(failure);
            }
        };
    }
}
