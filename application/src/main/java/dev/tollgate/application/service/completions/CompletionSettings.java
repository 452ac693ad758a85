package dev.tollgate.application.service.completions;

import java.time.Duration;
import java.util.Objects;

/**
 * Timers and retry policy of completions. Defaults follow the spec's reference retry behaviour (§7.2: at most 3
 * retries, {@code Retry-After} when positive, else min(1000 ms × 2^attempt, 8000 ms)) and reliability goal G14.
 *
 * @param firstByteTimeout how long an upstream may take to send its first byte
 * @param idleTimeout      the longest silence between two chunks of a stream
 * @param lease            how long a hold lives without its request; requests are stopped before it runs out
 * @param maxRetries       passes over the model's providers after the first one
 * @param backoffBase      wait before the first retry pass (doubles per pass)
 * @param backoffCap       longest wait between passes
 */
public record CompletionSettings(Duration firstByteTimeout, Duration idleTimeout, Duration lease, int maxRetries,
        Duration backoffBase, Duration backoffCap) {

    public static final CompletionSettings DEFAULTS = new CompletionSettings(Duration.ofSeconds(120),
            Duration.ofSeconds(60), Duration.ofMinutes(15), 3, Duration.ofSeconds(1), Duration.ofSeconds(8));

    /**
     * The longest wait between retry passes a provider's Retry-After may ask for; a longer one ends the request at
     * once (a client would rather hear now than after an hour, and the hold would wait as long).
     */
    public static final Duration LONGEST_HINTED_WAIT = Duration.ofSeconds(30);

    public CompletionSettings {
        Objects.requireNonNull(firstByteTimeout);
        Objects.requireNonNull(idleTimeout);
        Objects.requireNonNull(lease);
        Objects.requireNonNull(backoffBase);
        Objects.requireNonNull(backoffCap);
        if (lease.compareTo(Duration.ofMinutes(2)) < 0) {
            throw new IllegalArgumentException("the hold lease must be at least 2 minutes");
        }
        if (firstByteTimeout.isNegative() || firstByteTimeout.isZero() || idleTimeout.isNegative()
                || idleTimeout.isZero()) {
            throw new IllegalArgumentException("the first-byte and idle timeouts must be positive, were "
                    + firstByteTimeout + " and " + idleTimeout);
        }
        if (maxRetries < 0 || backoffBase.isNegative() || backoffCap.isNegative()) {
            throw new IllegalArgumentException("retries and backoff must not be negative");
        }
    }

    /** The longest a request may run: its hold's lease less a minute for settling. */
    public Duration maxDuration() {
        return lease.minusMinutes(1);
    }

    /** Wait before retry pass {@code pass} (1-based): the provider's positive hint, else exponential backoff. */
    public Duration backoff(int pass, Duration retryAfter) {
        if (retryAfter != null && !retryAfter.isNegative() && !retryAfter.isZero()) {
            return retryAfter;
        }
        long millis = backoffBase.toMillis() << Math.min(pass - 1, 20);
        return Duration.ofMillis(Math.min(millis, backoffCap.toMillis()));
    }
}
