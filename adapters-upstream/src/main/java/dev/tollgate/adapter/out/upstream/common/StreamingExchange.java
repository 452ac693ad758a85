package dev.tollgate.adapter.out.upstream.common;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Upstream adapter support: what a provider's decoder of one streaming HTTP exchange ({@link UpstreamHttp}) hears,
 * and helpers to read an upstream's answer.
 */
public final class StreamingExchange {

    private StreamingExchange() {
    }

    /** Turns one provider's stream into listener events. */
    public interface Decoder {
        void line(String line);

        /**
         * The first byte of a 200's body arrived, before any line may be whole: the provider began its answer (an
         * audit: a first line sent in part, then silence, was taken for a provider that never started and retried
         * on every route).
         */
        void bodyBegan();

        /**
         * Whether the decoder has its answer's end (or a failure): nothing more of the body matters. A provider that
         * then holds the body open is closed after a grace (an audit: [DONE], then a body never ended, kept the
         * connection for minutes, never back in the pool nor closed).
         */
        boolean answerComplete();

        /** The body ended (normally or not). */
        void ended();

        /** A status other than 200, with the body and the {@code Retry-After} header (or null). */
        void rejected(int status, String retryAfter, String body);

        void transportFailed(Throwable error);

        /** The provider sent something that is no event stream (a line beyond the limit); the body was closed. */
        void malformed(String what);

        /** The caller cancelled: report nothing more. */
        void cancelled();
    }

    /**
     * A positive {@code Retry-After} (RFC 9110: whole seconds or an HTTP date; fractional seconds, which some
     * providers send, are rounded up so that nobody comes back early), or null when absent, not positive, or not
     * readable.
     */
    public static Duration retryAfter(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String value = header.strip();
        Duration wait;
        try {
            BigDecimal seconds = decimal(value);
            if (seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(86_400L * 366)) > 0) {
                return seconds.signum() <= 0 ? null : Duration.ofDays(366);
            }
            wait = Duration.ofMillis(seconds.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact());
        } catch (NumberFormatException | ArithmeticException notSeconds) {
            try {
                wait = Duration.between(now, ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant());
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
        return wait.isNegative() || wait.isZero() ? null : wait;
    }

    /**
     * Digits with an optional fraction: how a delay is written. No exponent and no sign: {@code 1e-999999999} is
     * a few bytes whose rounding to milliseconds would take minutes, and {@code 1e999999999} cannot be scaled.
     */
    private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile("[0-9]+(\\.[0-9]+)?");

    /** A delay written as a decimal number ({@link #DECIMAL}). */
    static BigDecimal decimal(String text) {
        if (!DECIMAL.matcher(text).matches()) {
            throw new NumberFormatException("not digits with an optional fraction: " + text);
        }
        return new BigDecimal(text);
    }

    /** An upstream error body, on one line and short enough for a message. */
    public static String abbreviate(String text) {
        String oneLine = text == null ? "" : text.replaceAll("\\s+", " ").strip();
        return oneLine.length() > 300 ? oneLine.substring(0, 300) + "..." : oneLine;
    }
}
