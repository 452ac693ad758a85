package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.shared.Usd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * HTTP adapter: completion metrics for the Prometheus endpoint. {@code tollgate_completions_total} (model,
 * provider, outcome = the ledger status: completed, failed, cancelled; stream), {@code tollgate_tokens_total}
 * (model, kind) and {@code tollgate_spend_micro_usd_total} (model) are counted at settlement, so they add up to the
 * ledger; {@code tollgate_completion_duration_seconds}, {@code tollgate_completion_ttft_seconds},
 * {@code tollgate_completion_failures_total} (code) and the gauge {@code tollgate_holds_open}. HTTP latency per
 * route comes from Micronaut's {@code http_server_requests}.
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
            public boolean onReady() {
                return delegate.onReady();
            }

            @Override
            public boolean clientGone() {
                return delegate.clientGone();
            }

            @Override
            public void onStarted(String provider) {
                Timer.builder("tollgate.completion.ttft").description("Time to the upstream's first output")
                        .tag("model", model).tag("provider", provider).register(registry)
                        .record(Duration.ofNanos(System.nanoTime() - start));
                delegate.onStarted(provider);
            }

            @Override
            public void onDelta(String text) {
                delegate.onDelta(text);
            }

            @Override
            public void onText(AnswerChannel channel, String text) {
                delegate.onText(channel, text);
            }

            @Override
            public void onToolCallDelta(String toolCallsJson) {
                delegate.onToolCallDelta(toolCallsJson);
            }

            @Override
            public void onLogprobs(String contentJson) {
                delegate.onLogprobs(contentJson);
            }

            @Override
            public void onAttemptFailed(String provider, int status) {
                Counter.builder("tollgate.upstream.errors")
                        .description("Failed attempts at a provider, including those a fallback or retry hid")
                        .tag("provider", provider).tag("status", Integer.toString(status)).register(registry)
                        .increment();
                delegate.onAttemptFailed(provider, status);
            }

            @Override
            public void onComplete(CompletionResult result) {
                Timer.builder("tollgate.completion.duration").tag("model", model).register(registry)
                        .record(Duration.ofNanos(System.nanoTime() - start));
                delegate.onComplete(result);
            }

            @Override
            public void onFailure(CompletionFailure failure) {
                Counter.builder("tollgate.completion.failures").tag("code", failure.code()).register(registry)
                        .increment();
                delegate.onFailure(failure);
            }

            /** Counted at settlement, as the ledger counts: cancelled and failed requests with their charges too. */
            @Override
            public void onSettled(String provider, String status, TokenUsage billed, Usd charged) {
                Counter.builder("tollgate.completions").tag("model", model)
                        .tag("provider", provider == null ? "none" : provider)
                        .tag("outcome", status).tag("stream", Boolean.toString(stream)).register(registry)
                        .increment();
                Counter.builder("tollgate.tokens").tag("model", model).tag("kind", "prompt").register(registry)
                        .increment(billed.promptTokens());
                Counter.builder("tollgate.tokens").tag("model", model).tag("kind", "completion").register(registry)
                        .increment(billed.completionTokens());
                Counter.builder("tollgate.spend.micro.usd").description("Charged spend in micro-USD")
                        .tag("model", model).register(registry).increment(charged.micros());
                delegate.onSettled(provider, status, billed, charged);
            }
        };
    }
}
