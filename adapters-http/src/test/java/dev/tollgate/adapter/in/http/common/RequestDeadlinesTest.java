package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The surface a request's first bytes name — what the 408 of a head that never ended answers in (and the envelope
 * of a head the codec could not read).
 */
class RequestDeadlinesTest {

    private static boolean controlPlane(String start) {
        return UnreadableRequestHeads.targetIsControlPlane(
                Unpooled.wrappedBuffer(start.getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Test
    void theControlPlanesTargetsWholeOrCutShort() {
        assertTrue(controlPlane("GET /api/v1/keys?offset=0 HTTP/1.1\r\nHost: x\r\n"));
        assertTrue(controlPlane("GET /api/v1/ke"), "as far as the bytes go");
        assertTrue(controlPlane("\r\n\r\nGET /api/v1/keys HTTP/1.1"), "empty lines before it skipped");
        assertTrue(controlPlane("GET //api/v1/keys HTTP/1.1"));
        assertTrue(controlPlane("GET http://example.com:8080/api/v1/keys HTTP/1.1"), "absolute form");
    }

    @Test
    void otherTargetsAndNoTargetYet() {
        assertFalse(controlPlane("GET /v1/models HTTP/1.1"));
        assertFalse(controlPlane("GET http://example.com/v1/models HTTP/1.1"));
        assertFalse(controlPlane("GET http://example.com HTTP/1.1"));
        assertFalse(controlPlane(""));
        assertFalse(controlPlane("GE"));
        assertFalse(controlPlane("GET "));
        assertFalse(controlPlane("GET /ap"), "not enough of it yet");
        assertFalse(controlPlane("\r\n"));
    }
}
