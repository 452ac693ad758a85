package dev.tollgate.bootstrap;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.env.Environment;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Start-up checks of the settings whose wrong values the framework would take: a duration of zero or less where
 * only a positive one works (a sweep that never runs, a head timeout that cuts every request), one so long that
 * timers overflow ({@code 200000d} fails every completion with an arithmetic error), a boolean typo read as
 * {@code false}. Each refuses the start-up with the environment variable's name, as docs/operations.md promises,
 * instead of a server that half-starts or answers 500.
 */
@Context
final class SettingChecks {

    /** Longer than any timer of the gateway needs; far below where nanosecond arithmetic overflows (292 years). */
    private static final Duration LONGEST = Duration.ofDays(366);

    SettingChecks(Environment environment) {
        positive(environment, "tollgate.completions.first-byte-timeout");
        positive(environment, "tollgate.completions.idle-timeout");
        positive(environment, "tollgate.completions.sweep-interval");
        positive(environment, "tollgate.completions.hold-lease");
        positive(environment, "tollgate.http.request-head-timeout");
        positive(environment, "tollgate.http.request-body-timeout");
        positive(environment, "tollgate.upstream.pool-idle-timeout");
        positive(environment, "tollgate.dashboard.verification-lifetime");
        notNegative(environment, "tollgate.catalog-check-interval");
        notNegative(environment, "tollgate.shutdown.settle-wait");
        notNegative(environment, "micronaut.lifecycle.graceful-shutdown.grace-period");
        bool(environment, "tollgate.playground.user-billed");
    }

    private static void positive(Environment environment, String property) {
        duration(environment, property).ifPresent(value -> {
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(named(property) + " must be a positive duration, e.g. 30s or 5m; "
                        + "it was " + text(environment, property));
            }
        });
    }

    private static void notNegative(Environment environment, String property) {
        duration(environment, property).ifPresent(value -> {
            if (value.isNegative()) {
                throw new IllegalArgumentException(named(property) + " must not be negative, e.g. 0s or 5s; it was "
                        + text(environment, property));
            }
        });
    }

    private static Optional<Duration> duration(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null) {
            return Optional.empty();
        }
        // A unit is required: a bare number would be read as milliseconds by some readers and refused by others.
        Optional<Duration> value = text.strip().matches("-?[0-9]+") ? Optional.empty()
                : environment.getProperty(property, Duration.class);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(named(property) + " must be a duration with a unit, e.g. 30s, 5m or "
                    + "2h; it was " + text);
        }
        if (value.get().compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(named(property) + " must be at most 366d; it was " + text);
        }
        return value;
    }

    private static void bool(Environment environment, String property) {
        String text = text(environment, property);
        if (text != null && !text.strip().equalsIgnoreCase("true") && !text.strip().equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(named(property) + " must be true or false; it was " + text);
        }
    }

    private static String text(Environment environment, String property) {
        return environment.getProperty(property, String.class).orElse(null);
    }

    /** The environment variable and the property, as docs/operations.md lists them. */
    static String named(String property) {
        return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_') + " (" + property + ")";
    }
}
