package dev.tollgate.adapter.in.http.completions;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * Streaming settings ({@code tollgate.sse.*}): an SSE comment is sent every {@code keep-alive} while the stream
 * is otherwise quiet, so clients with a read timeout keep waiting (G14).
 */
@ConfigurationProperties("tollgate.sse")
public record SseSettings(@Bindable(defaultValue = "15s") Duration keepAlive) {
}
