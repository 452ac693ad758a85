package dev.tollgate.adapter.out.upstream.common;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/** Test fixture for fuzz tests of the upstream adapters: a client that never connects, and streams as lines. */
public final class FuzzedStreams {

    private FuzzedStreams() {
    }

    /** An HTTP client whose only use here is its clock: a decoder is driven line by line, without a network. */
    public static UpstreamHttp offline() {
        return new UpstreamHttp(null, NioSocketChannel.class, Duration.ofSeconds(30),
                Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC));
    }

    /** Feeds the fuzzer's text to a decoder line by line, then ends the body. */
    public static void feed(StreamingExchange.Decoder decoder, FuzzedDataProvider data) {
        for (String line : lines(data)) {
            decoder.line(line);
        }
        decoder.ended();
    }

    /** The fuzzer's text cut into lines at its line feeds (an SSE body after {@link SseLineSplitter}). */
    public static String[] lines(FuzzedDataProvider data) {
        return data.consumeRemainingAsString().split("\n", -1);
    }
}
