package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.application.port.out.ModelProvider;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Upstream adapter support: one streaming HTTP exchange on the JDK client. A 200 is read line by line as bytes
 * arrive and handed to a {@link Decoder}; any other status is read whole and reported as a rejection; transport
 * errors are reported once. Cancelling closes the upstream connection at once.
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

        /** The caller cancelled: report nothing more. */
        void cancelled();
    }

    public static ModelProvider.UpstreamCall send(HttpClient client, HttpRequest request,
            ModelProvider.UpstreamListener listener, Decoder decoder) {
        SseLineSubscriber subscriber = new SseLineSubscriber(decoder::line, decoder::ended);
        CompletableFuture<HttpResponse<Void>> response = client.sendAsync(request, info -> {
            if (info.statusCode() != 200) {
                return HttpResponse.BodySubscribers.mapping(
                        HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8), text -> {
                            decoder.rejected(info.statusCode(), info.headers().firstValue("Retry-After").orElse(null),
                                    text);
                            return null;
                        });
            }
            listener.onFirstByte();
            return HttpResponse.BodySubscribers.fromSubscriber(subscriber, s -> null);
        });
        response.whenComplete((r, error) -> {
            if (error != null) {
                decoder.transportFailed(error);
            }
        });
        return () -> {
            decoder.cancelled();
            subscriber.cancel();
            response.cancel(true);
        };
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
