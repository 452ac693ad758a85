package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.application.port.in.completions.CompletionFailure;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * sdk-contract.md: the {@code Retry-After} of {@code transfer_agent_capacity_reached} is accurate; a wait too long to
 * sleep through inside a call also says {@code x-should-retry: false}, as the traffic limits' long waits do.
 */
class CompletionResponsesTest {

    private static MutableHttpResponse<?> capacity(long retryAfterSeconds) {
        return CompletionResponses.failureResponse(HttpRequest.POST("/v1/chat/completions", ""),
                new CompletionFailure(429, "rate_limit_error", "transfer_agent_capacity_reached",
                        "Every provider of this model is at capacity", retryAfterSeconds, false), Clock.systemUTC());
    }

    @Test
    void aShortWaitIsToldAsItIsAndWorthARetry() {
        MutableHttpResponse<?> response = capacity(5);
        assertEquals(429, response.getStatus().getCode());
        assertEquals("5", response.getHeaders().get("Retry-After"));
        assertNull(response.getHeaders().get("x-should-retry"));
        assertNull(capacity(60).getHeaders().get("x-should-retry"));
    }

    @Test
    void aLongWaitIsToldExactlyAndNotToBeSleptThroughInsideACall() {
        MutableHttpResponse<?> response = capacity(3600);
        assertEquals("3600", response.getHeaders().get("Retry-After"), "not cut to a minute (an audit)");
        assertEquals("false", response.getHeaders().get("x-should-retry"));
        assertEquals("false", capacity(61).getHeaders().get("x-should-retry"));
    }
}
