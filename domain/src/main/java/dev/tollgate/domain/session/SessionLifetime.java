package dev.tollgate.domain.session;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a dashboard session lives: it ends after {@code idle} without a request, and in any case
 * {@code absolute} after the log-in (defaults 12 hours and 7 days).
 */
public record SessionLifetime(Duration idle, Duration absolute) {

    public static final SessionLifetime DEFAULT = new SessionLifetime(Duration.ofHours(12), Duration.ofDays(7));

    public SessionLifetime {
        Objects.requireNonNull(idle);
        Objects.requireNonNull(absolute);
        if (idle.toSeconds() < 1 || absolute.toSeconds() < 1) {
            throw new IllegalArgumentException("session lifetimes must be at least a second");
        }
        if (idle.compareTo(absolute) > 0) {
            throw new IllegalArgumentException("the idle lifetime of a session cannot exceed its absolute lifetime");
        }
    }
}
