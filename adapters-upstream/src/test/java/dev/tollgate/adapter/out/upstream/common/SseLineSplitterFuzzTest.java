package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * G17 fuzz target: the upstream SSE framer, fed any bytes in any pieces (as TCP hands them over). The lines are those
 * the whole body makes read at once, and those of a plain reading of the SSE rule (a line ends at CR LF, LF or CR),
 * however the bytes are split. Inputs: {@code SseLineSplitterFuzzTestInputs/}.
 */
class SseLineSplitterFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void linesDoNotDependOnHowTheBytesArrive(FuzzedDataProvider data) {
        int pieces = data.consumeInt(1, 16);
        int[] cuts = new int[pieces - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = data.consumeInt(0, 4096);
        }
        byte[] body = data.consumeRemainingAsBytes();

        List<String> whole = new ArrayList<>();
        SseLineSplitter once = new SseLineSplitter(whole::add);
        assertTrue(once.feed(Unpooled.wrappedBuffer(body)));
        once.finish();
        assertEquals(reference(body), whole);

        List<String> split = new ArrayList<>();
        SseLineSplitter inPieces = new SseLineSplitter(split::add);
        int at = 0;
        for (int cut : cuts) {
            int end = Math.min(body.length, at + cut);
            ByteBuf piece = Unpooled.wrappedBuffer(body, at, end - at);
            assertTrue(inPieces.feed(piece));
            assertEquals(0, piece.readableBytes(), "every byte of a piece is taken");
            at = end;
        }
        inPieces.feed(Unpooled.wrappedBuffer(body, at, body.length - at));
        inPieces.finish();
        assertEquals(whole, split);
    }

    /** SSE's line rule read plainly: CR LF, LF or CR ends a line; a last line without its end still counts. */
    private static List<String> reference(byte[] body) {
        List<String> lines = new ArrayList<>();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i++) {
            byte b = body[i];
            if (b == '\r' || b == '\n') {
                lines.add(line.toString(StandardCharsets.UTF_8));
                line.reset();
                if (b == '\r' && i + 1 < body.length && body[i + 1] == '\n') {
                    i++;
                }
            } else {
                line.write(b);
            }
        }
        if (line.size() > 0) {
            lines.add(line.toString(StandardCharsets.UTF_8));
        }
        return lines;
    }
}
