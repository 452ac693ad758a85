package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.quota.Refusal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UseCaseExceptionHandlerTest {

    private final UseCaseExceptionHandler handler = new UseCaseExceptionHandler(Clock.systemUTC(),
            new SimpleMeterRegistry());

    private HttpResponse<?> refusedFor(Refusal.Kind kind, Duration wait) {
        return handler.handle(HttpRequest.POST("/v1/chat/completions", ""), new RateLimitExceededException(
                new Refusal(kind, LimitScope.KEY, "refused", wait), RateLimitReport.NONE));
    }

    @Test
    void aRateLimitRefusalSaysHowLongToWaitAndIsWorthRetryingWithinAMinute() {
        HttpResponse<?> burst = refusedFor(Refusal.Kind.REQUESTS, Duration.ofMillis(9_200));
        assertEquals(429, burst.getStatus().getCode());
        assertEquals("10", burst.getHeaders().get("Retry-After"));
        assertNull(burst.getHeaders().get("x-should-retry"));

        HttpResponse<?> minute = refusedFor(Refusal.Kind.REQUESTS, Duration.ofSeconds(60));
        assertEquals("60", minute.getHeaders().get("Retry-After"));
        assertNull(minute.getHeaders().get("x-should-retry"));
    }

    @Test
    void aLongerWaitIsStillTheExactOneButNotOneToSleepThroughInsideACall() {
        // A distinct-source set stays full for up to an hour: the openai SDK would sleep that long inside the call.
        HttpResponse<?> distinct = refusedFor(Refusal.Kind.DISTINCT, Duration.ofMillis(3_599_865));
        assertEquals(429, distinct.getStatus().getCode());
        assertEquals("3600", distinct.getHeaders().get("Retry-After"));
        assertEquals("false", distinct.getHeaders().get("x-should-retry"));

        assertEquals("false", refusedFor(Refusal.Kind.COOLDOWN, Duration.ofMillis(60_001)).getHeaders()
                .get("x-should-retry"));
    }
}
