package dev.tollgate.adapter.out.upstream.common;

import java.time.Duration;

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

    /** A positive {@code Retry-After} in seconds, or null (absent, zero, or an HTTP date). */
    public static Duration retryAfter(String header) {
        if (header == null) {
            return null;
        }
        try {
            long seconds = Long.parseLong(header.strip());
            return seconds > 0 ? Duration.ofSeconds(seconds) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** An upstream error body, on one line and short enough for a message. */
    public static String abbreviate(String text) {
        String oneLine = text == null ? "" : text.replaceAll("\\s+", " ").strip();
        return oneLine.length() > 300 ? oneLine.substring(0, 300) + "..." : oneLine;
    }
}
