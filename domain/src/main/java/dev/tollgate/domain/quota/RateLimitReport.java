package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * What a response tells about the limits (§7.2 {@code x-ratelimit-*}): the deciding request bucket and the
 * deciding token window — each the one with the least left. Either may be {@code null} (nothing of that kind
 * was checked).
 */
public record RateLimitReport(Window requests, Window tokens) {

    public static final RateLimitReport NONE = new RateLimitReport(null, null);

    /** One bucket as reported: its limit, what is left of it, and how long until it is whole again. */
    public record Window(LimitScope scope, long limit, long remaining, Duration reset) {
        public Window {
            Objects.requireNonNull(scope);
            Objects.requireNonNull(reset);
        }
    }
}
