package dev.tollgate.adapter.in.http.common;

import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.completions.UnsupportedCapabilityException;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.shared.DomainRuleViolation;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * HTTP adapter: the §7.2 {@code x-ratelimit-*} headers on every {@code /v1} response whose request reached the
 * traffic limits — successes, streams, refusals and later failures alike. OpenAI's names and duration format:
 * {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests}, {@code x-ratelimit-reset-requests}
 * (e.g. {@code 6m0s}, {@code 1.5s}, {@code 250ms}) for the deciding request bucket, the same with {@code -tokens}
 * for the deciding token window, and Tollgate's {@code x-ratelimit-scope-requests} / {@code -tokens} naming which
 * bucket that is ({@code key}, {@code key_ip}, {@code account}, {@code ip}, …).
 */
@ServerFilter("/v1/**")
public final class RateLimitHeaders {

    private static final String ATTRIBUTE = "tollgate.rate-limits";

    /** Keeps what the limits said about this request, for its response. */
    public static void remember(HttpRequest<?> request, RateLimitReport report) {
        request.setAttribute(ATTRIBUTE, report);
    }

    /**
     * Runs {@code attempt}, the reading and starting of a request the limits count; when it is refused for its
     * content (400, 404) before the limits saw it, it is counted all the same by {@code count} — so that invalid
     * requests are not free of the limits, carry the headers, or become the 429 of an exhausted bucket.
     */
    public static <T> T countingRefusals(HttpRequest<?> request, Supplier<RateLimitReport> count,
            Supplier<T> attempt) {
        try {
            return attempt.get();
        } catch (InvalidRequestException | DomainRuleViolation | ModelNotFoundException
                | UnsupportedCapabilityException refused) {
            remember(request, count.get());
            throw refused;
        }
    }

    @ResponseFilter
    public void addHeaders(HttpRequest<?> request, MutableHttpResponse<?> response) {
        request.getAttribute(ATTRIBUTE, RateLimitReport.class).ifPresent(report -> {
            write(response, "requests", report.requests());
            write(response, "tokens", report.tokens());
        });
    }

    private static void write(MutableHttpResponse<?> response, String kind, RateLimitReport.Window window) {
        if (window == null) {
            return;
        }
        response.header("x-ratelimit-limit-" + kind, Long.toString(window.limit()));
        response.header("x-ratelimit-remaining-" + kind, Long.toString(window.remaining()));
        response.header("x-ratelimit-reset-" + kind, duration(window.reset()));
        response.header("x-ratelimit-scope-" + kind, window.scope().code());
    }

    /** Go-style durations as OpenAI sends them: {@code 0s}, {@code 250ms}, {@code 1.5s}, {@code 6m0s}, {@code 1h0m0s}. */
    static String duration(Duration duration) {
        long millis = Math.max(0, duration.toMillis());
        if (millis == 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        long seconds = millis / 1000 % 60;
        long fraction = millis % 1000;
        StringBuilder text = new StringBuilder();
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(seconds);
        if (fraction > 0) { // milliseconds as a decimal fraction without trailing zeros: 500 -> .5, 50 -> .05
            text.append('.');
            for (long digit = 100; fraction > 0; digit /= 10) {
                text.append((char) ('0' + fraction / digit));
                fraction %= digit;
            }
        }
        return text.append('s').toString();
    }
}
