package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamDecoderBaseTest {

    /** A decoder whose events are lines of text that end with a full stop; it counts how often it reads. */
    private static final class Sentences extends StreamDecoderBase {
        final List<String> events = new ArrayList<>();
        int reads;

        Sentences(RecordingListener listener) {
            super("stub", listener, Clock.systemUTC());
        }

        private String read(String text) throws IOException {
            reads++;
            if (!text.endsWith(".")) {
                throw new IOException("no sentence yet");
            }
            return text;
        }

        @Override
        public void line(String line) {
            String event = line.isEmpty() ? eventEnded("sentence", this::read) : readData(line, this::read);
            if (event != null) {
                events.add(event);
            }
        }
    }

    @Test
    void theLinesOfAnEventOfSeveralAreReadOnceTogetherAtItsEndNotAgainWithEachLine() {
        Sentences decoder = new Sentences(new RecordingListener());
        decoder.line("One line.");
        decoder.line("");
        for (int i = 0; i < 10_000; i++) {
            decoder.line("word");
        }
        decoder.line("end.");
        assertEquals(List.of("One line."), decoder.events, "the event of several lines waits for its end");
        decoder.line("");
        assertEquals(2, decoder.events.size());
        assertTrue(decoder.events.get(1).startsWith("word\nword\n") && decoder.events.get(1).endsWith("\nend."));
        // One read for the event on one line; for the other, one of its first line alone and one of all its lines.
        assertEquals(3, decoder.reads);
    }

    @Test
    void aTransportFailureIsToldInWordsWithoutAddressesOrJavaClassNames() {
        assertEquals("the connection was refused", StreamDecoderBase.transportProblem(
                new java.net.ConnectException("Connection refused: /10.0.0.7:8000")));
        assertEquals("the connection timed out", StreamDecoderBase.transportProblem(new IOException("x",
                new io.netty.channel.ConnectTimeoutException("connection timed out: /10.0.0.7:8000"))));
        assertEquals("its host name did not resolve", StreamDecoderBase.transportProblem(
                new java.net.UnknownHostException("llm.internal")));
        assertEquals("the connection was reset", StreamDecoderBase.transportProblem(
                new IOException("recvAddress(..) failed: Connection reset by peer")));
        assertEquals("the connection closed in the middle of an answer", StreamDecoderBase.transportProblem(
                new IOException("the connection closed in the middle of an answer",
                        new java.nio.channels.ClosedChannelException())));
        assertEquals("the connection failed", StreamDecoderBase.transportProblem(new IOException("10.0.0.7 said no")));
        RecordingListener listener = new RecordingListener();
        new Sentences(listener).transportFailed(new java.net.ConnectException("Connection refused"));
        assertEquals("stub unreachable: the connection was refused", listener.failure.message());
        assertTrue(listener.failure.retryable());
    }

    @Test
    void anEventWhoseLinesNeverMakeOneFailsTheStreamWhenItEnds() {
        RecordingListener listener = new RecordingListener();
        Sentences decoder = new Sentences(listener);
        decoder.line("no");
        decoder.line("sentence");
        assertNull(listener.failure);
        decoder.line("");
        assertEquals("unreadable sentence from stub", listener.failure.message());
    }

    @Test
    void anEventOfSeveralLinesBeyondTheLimitFailsWithoutWaitingForItsEnd() {
        RecordingListener listener = new RecordingListener();
        Sentences decoder = new Sentences(listener);
        String line = "x".repeat(1000);
        for (int i = 0; i <= SseLineSplitter.MAX_LINE / 1000 && listener.failure == null; i++) {
            decoder.line(line);
        }
        assertTrue(listener.failure.message().contains("longer than"), listener.failure.message());
        assertEquals(1, decoder.reads, "only the first line was read alone");
    }
}
