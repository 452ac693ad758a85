package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * Why the traffic limits refused a request (§7.2 {@code rate_limit_exceeded}): which kind of check, for which
 * scope, a message a person can act on, and how long to wait.
 */
public record Refusal(Kind kind, LimitScope scope, String message, Duration retryAfter) {

    public enum Kind {
        REQUESTS,
        CONCURRENCY,
        DISTINCT,
        TOKENS,
        COOLDOWN,
        BEHAVIOURAL_COOLDOWN
    }

    public Refusal {
        Objects.requireNonNull(kind);
        Objects.requireNonNull(scope);
        Objects.requireNonNull(message);
        Objects.requireNonNull(retryAfter);
    }

    /** Whole seconds for {@code Retry-After}: rounded up, at least 1 (a client never comes back too early). */
    public long retryAfterSeconds() {
        long millis = retryAfter.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }
}
