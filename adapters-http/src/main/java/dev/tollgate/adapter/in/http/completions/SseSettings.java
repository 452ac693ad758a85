package dev.tollgate.adapter.in.http.completions;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * Streaming settings ({@code tollgate.sse.*}): an SSE comment is sent every {@code keep-alive} while the stream
 * is otherwise quiet, so clients with a read timeout keep waiting (G14); a client that has read nothing of a
 * held-back stream for {@code client-stall-timeout} is disconnected (its request is billed what the provider sent).
 */
@ConfigurationProperties("tollgate.sse")
public record SseSettings(@Bindable(defaultValue = "15s") Duration keepAlive,
        @Bindable(defaultValue = "60s") Duration clientStallTimeout) {

    /** A keep-alive interval or stall timeout that is not positive is refused at start-up, not by every stream. */
    public SseSettings {
        if (keepAlive == null || keepAlive.isNegative() || keepAlive.isZero()) {
            throw new IllegalArgumentException("tollgate.sse.keep-alive (TOLLGATE_SSE_KEEP_ALIVE) must be a positive "
                    + "duration, e.g. 15s; it was " + keepAlive);
        }
        if (clientStallTimeout == null || clientStallTimeout.isNegative() || clientStallTimeout.isZero()) {
            throw new IllegalArgumentException("tollgate.sse.client-stall-timeout (TOLLGATE_SSE_CLIENT_STALL_TIMEOUT) "
                    + "must be a positive duration, e.g. 60s; it was " + clientStallTimeout);
        }
    }
}
