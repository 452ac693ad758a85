package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpStatus;
import io.micronaut.json.JsonMapper;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * HTTP adapter: answers written below Micronaut's HTTP codec, straight to a connection whatever state its decoder is
 * in (a request that never finished arriving, a connection over the cap), and the way such a connection ends.
 */
final class RawAnswers {

    private RawAnswers() {
    }

    /**
     * A whole HTTP/1.1 error answer that closes its connection: the envelope of the control plane or of the model
     * surface ({@link ApiErrors#body}) with a request id of its own, in the body and in {@code x-request-id}.
     */
    static byte[] error(JsonMapper json, Clock clock, boolean controlPlane, HttpStatus status, String message,
            ApiErrors.ModelError modelError, String moreHeaders) {
        String requestId = RequestIds.newId();
        byte[] body;
        try {
            body = json.writeValueAsBytes(ApiErrors.body(controlPlane, status, message, modelError, requestId, clock));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return closing(status.getCode() + " " + status.getReason(), requestId, moreHeaders, body);
    }

    private static byte[] closing(String statusLine, String requestId, String moreHeaders, byte[] body) {
        byte[] head = ("HTTP/1.1 " + statusLine + "\r\nConnection: close\r\n" + moreHeaders
                + "Content-Type: application/json\r\n" + RequestIds.HEADER + ": " + requestId
                + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] answer = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, answer, head.length, body.length);
        return answer;
    }

    /**
     * Ends a connection that was answered before its request was read to the end. A plain close with unread input
     * makes the kernel reset the connection, and the reset can destroy the answer before the client reads it: the
     * output is shut first (the client reads the answer, then the end), what the client still sends is read and
     * dropped for {@code lingerMillis}, then the connection closes.
     */
    static void closeLingering(Channel channel, long lingerMillis) {
        if (channel instanceof DuplexChannel duplex && channel.isActive()) {
            duplex.shutdownOutput().addListener(shut -> channel.eventLoop().schedule(() -> channel.close(),
                    lingerMillis, TimeUnit.MILLISECONDS));
        } else {
            channel.close();
        }
    }
}
