package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonObjectBodyTest {

    private static byte[] body(String before, int[] raw, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
        for (int b : raw) {
            out.write(b);
        }
        out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    @Test
    void wellFormedUtf8IsRead() {
        JsonObjectBody body = JsonObjectBody.parse("{\"content\":\"héllo ☃ 😀\"}".getBytes(StandardCharsets.UTF_8));
        assertEquals("héllo ☃ 😀", body.string("content"));
    }

    /** UTF-16 and UTF-32 bodies hold NUL bytes no UTF-8 JSON has; the parser would detect and read them. */
    @Test
    void aBodyInUtf16IsRefusedNotDetected() {
        for (java.nio.charset.Charset charset : new java.nio.charset.Charset[] {StandardCharsets.UTF_16LE,
            StandardCharsets.UTF_16BE, java.nio.charset.Charset.forName("UTF-32LE")}) {
            InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                    () -> JsonObjectBody.parse("{\"model\":\"é\"}".getBytes(charset)));
            assertTrue(refused.getMessage().contains("not valid UTF-8 JSON"), refused.getMessage());
        }
    }

    @Test
    void illFormedUtf8IsRefusedNotDecodedIntoOtherCharacters() {
        int[][] sequences = {
            {0xC0, 0xAF}, // overlong "/" — the parser alone would read it as "/"
            {0xE0, 0x80, 0xAF}, // overlong "/" in three bytes
            {0xED, 0xA0, 0x80}, // a UTF-16 surrogate encoded as UTF-8
            {0xF4, 0x90, 0x80, 0x80}, // beyond U+10FFFF
            {0xFF},
            {0xC3, 0x28},
        };
        for (int[] sequence : sequences) {
            InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                    () -> JsonObjectBody.parse(body("{\"content\":\"a", sequence, "b\"}")));
            assertTrue(refused.getMessage().contains("not valid UTF-8 (byte 13)"), refused.getMessage());
        }
    }

    @Test
    void malformedJsonIsDescribedWithoutTheParsersInternals() {
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> JsonObjectBody.parse("{".getBytes(StandardCharsets.UTF_8)));
        assertTrue(refused.getMessage().startsWith("Malformed JSON in request body"), refused.getMessage());
        assertTrue(!refused.getMessage().contains("Source") && !refused.getMessage().contains("REDACTED"),
                refused.getMessage());
        InvalidRequestException huge = assertThrows(InvalidRequestException.class,
                () -> JsonObjectBody.parse("{\"limit\":1e400}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(huge.getMessage().contains("smaller than 1e400"), huge.getMessage());
    }
}
