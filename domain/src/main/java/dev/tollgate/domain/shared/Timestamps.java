package dev.tollgate.domain.shared;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The service keeps every timestamp at millisecond precision, the precision it shows (§2.1). */
public final class Timestamps {

    private Timestamps() {
    }

    public static Instant millis(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MILLIS);
    }

    /** The time of a write: {@code now}, but always at least one millisecond after the previous write. */
    public static Instant nextWrite(Instant previous, Instant now) {
        Instant candidate = millis(now);
        return candidate.isAfter(previous) ? candidate : previous.plusMillis(1);
    }
}
