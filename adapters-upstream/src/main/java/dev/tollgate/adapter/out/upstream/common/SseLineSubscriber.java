package dev.tollgate.adapter.out.upstream.common;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * Reads an HTTP body as lines (LF or CRLF) as bytes arrive, for SSE. A line longer than {@value #MAX_LINE} bytes
 * ends the stream with a failure instead of growing without bound (G15). {@link #cancel()} cancels the
 * subscription, which makes the JDK client close the connection.
 */
public final class SseLineSubscriber implements Flow.Subscriber<List<ByteBuffer>> {

    public static final int MAX_LINE = 1 << 20;

    private final Consumer<String> lines;
    private final Runnable ended;
    private final java.io.ByteArrayOutputStream current = new java.io.ByteArrayOutputStream();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;

    public SseLineSubscriber(Consumer<String> lines, Runnable ended) {
        this.lines = lines;
        this.ended = ended;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (cancelled) {
            subscription.cancel();
        } else {
            subscription.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            while (buffer.hasRemaining()) {
                byte b = buffer.get();
                if (b == '\n') {
                    String line = current.toString(StandardCharsets.UTF_8);
                    current.reset();
                    lines.accept(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
                } else {
                    current.write(b);
                    if (current.size() > MAX_LINE) {
                        cancel();
                        ended.run();
                        return;
                    }
                }
            }
        }
    }

    @Override
    public void onError(Throwable throwable) {
        ended.run();
    }

    @Override
    public void onComplete() {
        if (current.size() > 0) {
            lines.accept(current.toString(StandardCharsets.UTF_8));
            current.reset();
        }
        ended.run();
    }

    public void cancel() {
        cancelled = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }
}
