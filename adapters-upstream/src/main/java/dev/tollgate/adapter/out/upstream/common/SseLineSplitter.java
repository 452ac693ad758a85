package dev.tollgate.adapter.out.upstream.common;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Upstream adapter support: cuts an HTTP body into lines (LF, CRLF or CR, as SSE allows; a leading byte order mark
 * dropped) as its bytes arrive. A line longer than {@value #MAX_LINE} bytes is refused instead of growing without
 * bound (G15). Not thread-safe: one body, read on one event loop.
 */
public final class SseLineSplitter {

    public static final int MAX_LINE = 1 << 20;

    private final Consumer<String> lines;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private boolean afterCr;
    private boolean firstLine = true;

    SseLineSplitter(Consumer<String> lines) {
        this.lines = lines;
    }

    /** Passes on every line {@code bytes} completes; false when a line grew beyond {@value #MAX_LINE} bytes. */
    boolean feed(ByteBuf bytes) {
        while (bytes.isReadable()) {
            if (afterCr) {
                // A CR ended the last line: a LF right after it (perhaps in this next piece) belongs to it.
                afterCr = false;
                if (bytes.getByte(bytes.readerIndex()) == '\n') {
                    bytes.skipBytes(1);
                    continue;
                }
            }
            int end = bytes.forEachByte(ByteProcessor.FIND_CRLF);
            int length = (end < 0 ? bytes.writerIndex() : end) - bytes.readerIndex();
            if (current.size() + length > MAX_LINE) {
                return false;
            }
            try {
                bytes.readBytes(current, length);
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
            }
            if (end < 0) {
                return true;
            }
            afterCr = bytes.readByte() == '\r';
            emit();
        }
        return true;
    }

    /** The body ended normally: a last line without its line feed still counts. */
    void finish() {
        if (current.size() > 0) {
            emit();
        }
    }

    private void emit() {
        String line = current.toString(StandardCharsets.UTF_8);
        current.reset();
        if (firstLine) {
            firstLine = false;
            if (line.startsWith("\uFEFF")) {
                line = line.substring(1); // a byte order mark starts the stream, not its first line (SSE: stripped)
            }
        }
        lines.accept(line);
    }
}
