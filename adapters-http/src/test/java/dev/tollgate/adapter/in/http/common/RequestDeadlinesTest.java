package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The request target read off the first bytes of a head that never ended (the surface its 408 answers for). */
class RequestDeadlinesTest {

    private static String target(String start) {
        byte[] bytes = start.getBytes(StandardCharsets.ISO_8859_1);
        return RequestDeadlines.requestTarget(bytes, bytes.length);
    }

    @Test
    void theTargetOfARequestLineWholeOrCutShort() {
        assertEquals("/api/v1/keys?offset=0", target("GET /api/v1/keys?offset=0 HTTP/1.1\r\nHost: x\r\n"));
        assertEquals("/api/v1/ke", target("GET /api/v1/ke"), "as far as the bytes go");
        assertEquals("/v1/models", target("\r\n\r\nGET /v1/models HTTP/1.1"), "empty lines before it skipped");
        assertEquals("/api/v1/keys", target("GET http://example.com:8080/api/v1/keys HTTP/1.1"));
        assertEquals("/", target("GET http://example.com HTTP/1.1"));
    }

    @Test
    void noTargetYet() {
        assertNull(target(""));
        assertNull(target("GE"));
        assertNull(target("GET "));
        assertNull(target("\r\n"));
    }

    @Test
    void onlyTheBytesGivenCount() {
        byte[] bytes = "GET /api/v1/keys HTTP/1.1".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("/ap", RequestDeadlines.requestTarget(bytes, 7));
    }
}
