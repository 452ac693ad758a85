package dev.tollgate.adapter.out.upstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.common.RecordingListener;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatorModelProviderTest {

    private static final ProviderRoute ROUTE = new ProviderRoute(new ProviderId("sim"), "sim", TokenPrice.FREE,
            TokenPrice.FREE, new ModelCapabilities(false, false, false, false));
    private static final TokenCounter TOKENS = new TokenCounter() {
        @Override
        public long countPrompt(ChatRequest request) {
            return 7;
        }

        @Override
        public long countText(String text) {
            return text.isEmpty() ? 0 : text.split(" ").length;
        }
    };

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static ChatRequest request(List<String> stop) {
        return new ChatRequest(new ModelId("t/sim"), List.of(new ChatMessage("user", "say something",
                "{\"role\":\"user\",\"content\":\"say something\"}")), 100, null, null, null, null, stop, null,
                false, null, null, null, null, null, false);
    }

    private RecordingListener run(Map<String, Object> settings, ChatRequest request) throws InterruptedException {
        SimulatorModelProvider simulator = new SimulatorModelProvider(
                new CatalogFile.ProviderSettings("sim", "simulator", settings), TOKENS, scheduler);
        RecordingListener answer = new RecordingListener();
        simulator.call(ROUTE, request, 100, answer);
        answer.await();
        return answer;
    }

    @Test
    void answersDeterministicallyWithItsUsage() throws InterruptedException {
        Map<String, Object> settings = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
                "output-tokens", 6);
        RecordingListener first = run(settings, request(List.of()));
        RecordingListener second = run(settings, request(List.of()));
        assertEquals(first.text(), second.text());
        assertEquals(6, first.text().split(" ").length);
        assertEquals("stop", first.finishReason);
        assertEquals(new TokenUsage(7, 6), first.usage);
    }

    @Test
    void theAnswerEndsBeforeAStopSequence() throws InterruptedException {
        Map<String, Object> settings = Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0,
                "output-tokens", 12);
        String full = run(settings, request(List.of())).text();
        String[] words = full.split(" ");
        String stop = words[3] + " " + words[4].substring(0, 2); // spans a word boundary, ends mid-word
        RecordingListener cut = run(settings, request(List.of("no-such-sequence", stop)));

        assertEquals(full.substring(0, full.indexOf(stop)), cut.text());
        assertFalse(cut.text().contains(stop), "the stop sequence is not part of the answer");
        assertEquals("stop", cut.finishReason);
        assertTrue(cut.usage.completionTokens() < 12, "fewer tokens than the whole answer");
    }

    @Test
    void aMidStreamFailureComesAfterSomeOutput() throws InterruptedException {
        RecordingListener answer = run(Map.of("time-to-first-token-ms", 0, "tokens-per-second", 0, "output-tokens", 8,
                "fail-every", 1, "fail-mode", "mid-stream"), request(List.of()));
        assertNotNull(answer.failure);
        assertFalse(answer.failure.retryable(), "output was sent: no fallback may repeat it");
        assertEquals(4, answer.text().split(" ").length);
        assertNull(answer.finishReason);
    }
}
