package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseLineSplitterTest {

    private static List<String> split(String... pieces) {
        List<String> lines = new ArrayList<>();
        SseLineSplitter splitter = new SseLineSplitter(lines::add);
        for (String piece : pieces) {
            splitter.feed(Unpooled.wrappedBuffer(piece.getBytes(StandardCharsets.UTF_8)));
        }
        splitter.finish();
        return lines;
    }

    @Test
    void linesEndWithLfCrLfOrCrAlone() {
        List<String> expected = List.of("data: a", "", "data: b", "");
        assertEquals(expected, split("data: a\n\ndata: b\n\n"));
        assertEquals(expected, split("data: a\r\n\r\ndata: b\r\n\r\n"));
        assertEquals(expected, split("data: a\r\rdata: b\r\r"));
        assertEquals(expected, split("data: a\n\r\ndata: b\r\n\n"));
    }

    @Test
    void aTerminatorOrALineCutBetweenPiecesIsOneLine() {
        List<String> expected = List.of("data: a", "", "data: b");
        assertEquals(expected, split("data: a\r", "\n\r", "\ndata: ", "b"));
        assertEquals(expected, split("data: a\r", "\r", "data: b"));
        assertEquals(List.of("ä"), split("\u00e4".substring(0, 1)));
    }

    @Test
    void aLineBeyondTheLimitIsRefused() {
        SseLineSplitter splitter = new SseLineSplitter(line -> { });
        assertFalse(splitter.feed(Unpooled.wrappedBuffer(new byte[SseLineSplitter.MAX_LINE + 1])));
    }
}
