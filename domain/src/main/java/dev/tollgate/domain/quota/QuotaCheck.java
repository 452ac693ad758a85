package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/** One check of a request against a traffic limit (§8). A request passes only if every check of it passes. */
public sealed interface QuotaCheck {

    Bucket bucket();

    /** The limit the check enforces (requests, members, slots or tokens). */
    long limit();

    /** Whether failing this check refuses the request (token windows of §8.1 only report). */
    default boolean blocking() {
        return true;
    }

    /**
     * At most {@code limit} admitted requests in any window of {@code window} length — an exact sliding window,
     * so that no 60 s (or 10 s) window ever holds more (reliability goal G6). A refusal of a bucket with a
     * {@code cooldownScope} counts as a request-limit block of that scope (§8.1 local request-limit cooldown).
     */
    record Requests(Bucket bucket, long limit, Duration window, Bucket cooldownScope) implements QuotaCheck {
        public Requests {
            Objects.requireNonNull(bucket);
            requirePositive(limit, window);
        }
    }

    /**
     * At most {@code limit} distinct members seen in any window of {@code window} length; a member already seen in
     * the window always passes (distinct source IPs per key, distinct keys per source IP, §8.1).
     */
    record Distinct(Bucket bucket, String member, long limit, Duration window) implements QuotaCheck {
        public Distinct {
            Objects.requireNonNull(bucket);
            Objects.requireNonNull(member);
            requirePositive(limit, window);
        }

        public Distinct withMember(String other) {
            return new Distinct(bucket, other, limit, window);
        }
    }

    /** At most {@code limit} requests in flight at once; the slot is held until the request ends. */
    record Concurrency(Bucket bucket, long limit) implements QuotaCheck {
        public Concurrency {
            Objects.requireNonNull(bucket);
            requirePositive(limit, Duration.ofSeconds(1));
        }
    }

    /**
     * Estimated tokens per window. {@code blocking} false: tracked for headers and telemetry only (§8.1); true:
     * a request that would take the window over its limit is refused (the playground's global token limit, §8.2).
     */
    record Tokens(Bucket bucket, long limit, long tokens, Duration window, boolean blocking) implements QuotaCheck {
        public Tokens {
            Objects.requireNonNull(bucket);
            requirePositive(limit, window);
            if (tokens < 0) {
                throw new IllegalArgumentException("tokens must not be negative");
            }
        }

        public Tokens withTokens(long other) {
            return new Tokens(bucket, limit, other, window, blocking);
        }
    }

    private static void requirePositive(long limit, Duration window) {
        Objects.requireNonNull(window);
        if (limit < 1) {
            throw new IllegalArgumentException("a limit must be at least 1, was " + limit);
        }
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("a window must be at least 1 ms");
        }
    }
}
