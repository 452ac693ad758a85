package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.application.testing.ScriptedModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RateCappedModelProviderTest {

    private final ScriptedModelProvider upstream = new ScriptedModelProvider("capped");
    private final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1_000));
    private final Queue<Runnable> events = new ArrayDeque<>();
    private final RateCappedModelProvider capped = new RateCappedModelProvider(upstream, 2, events::add, nanos::get);

    private static final ProviderRoute ROUTE = new ProviderRoute(new ProviderId("capped"), "m",
            TokenPrice.FREE, TokenPrice.FREE,
            new ModelCapabilities(false, false, false, false));
    private static final ChatRequest REQUEST = new ChatRequest(new ModelId("t/m"),
            List.of(new ChatMessage("user", "hi", "{\"role\":\"user\",\"content\":\"hi\"}")), 10, null, null, null,
            null, null, null, false, null, null, null, null, null, false);

    private static final class Recording implements ModelProvider.UpstreamListener {
        final AtomicReference<ModelProvider.UpstreamFailure> failure = new AtomicReference<>();

        @Override
        public void onFirstByte() {
        }

        @Override
        public void onDelta(String text) {
        }

        @Override
        public void onToolCallDelta(String toolCallsJson) {
        }

        @Override
        public void onFinish(String finishReason, TokenUsage reportedUsage) {
        }

        @Override
        public void onFailure(ModelProvider.UpstreamFailure failed) {
            failure.set(failed);
        }
    }

    @Test
    void callsOverTheCapNeverGoOutAndFailAsTheProvidersOwn429() {
        capped.call(ROUTE, REQUEST, 10, new Recording());
        capped.call(ROUTE, REQUEST, 10, new Recording());
        assertEquals(2, upstream.calls().size());

        nanos.addAndGet(TimeUnit.SECONDS.toNanos(10));
        Recording third = new Recording();
        capped.call(ROUTE, REQUEST, 10, third);
        assertEquals(2, upstream.calls().size(), "the third call did not go out");
        assertNull(third.failure.get(), "nothing is delivered inside call()");
        events.remove().run();
        ModelProvider.UpstreamFailure failure = third.failure.get();
        assertEquals(429, failure.status());
        assertTrue(failure.retryable() && failure.rateLimited(), "a fallback to the next route may follow");
        assertTrue(failure.retryAfter().compareTo(Duration.ofSeconds(1)) >= 0
                && failure.retryAfter().compareTo(Duration.ofMinutes(1)) <= 0, "until the next window: "
                + failure.retryAfter());
        assertTrue(failure.message().contains("2 requests per minute"), failure.message());
    }

    @Test
    void theNextWindowAdmitsAgain() {
        capped.call(ROUTE, REQUEST, 10, new Recording());
        capped.call(ROUTE, REQUEST, 10, new Recording());
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(61));
        capped.call(ROUTE, REQUEST, 10, new Recording());
        assertEquals(3, upstream.calls().size());
        assertTrue(events.isEmpty());
    }

    @Test
    void aCapMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new RateCappedModelProvider(upstream, 0, Runnable::run));
    }
}
