package dev.tollgate.adapter.out.upstream.common;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Upstream adapter support: cuts an HTTP body into lines (LF or CRLF) as its bytes arrive, for SSE. A line longer
 * than {@value #MAX_LINE} bytes is refused instead of growing without bound (G15). Not thread-safe: one body, read
 * on one event loop.
 */
final class SseLineSplitter {

    static final int MAX_LINE = 1 << 20;

    private final Consumer<String> lines;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();

    SseLineSplitter(Consumer<String> lines) {
        this.lines = lines;
    }

    /** Passes on every line {@code bytes} completes; false when a line grew beyond {@value #MAX_LINE} bytes. */
    boolean feed(ByteBuf bytes) {
        while (bytes.isReadable()) {
            int lf = bytes.indexOf(bytes.readerIndex(), bytes.writerIndex(), (byte) '\n');
            int length = (lf < 0 ? bytes.writerIndex() : lf) - bytes.readerIndex();
            if (current.size() + length > MAX_LINE) {
                return false;
            }
            try {
                bytes.readBytes(current, length);
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
            }
            if (lf < 0) {
                return true;
            }
            bytes.skipBytes(1);
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
        lines.accept(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
    }
}
