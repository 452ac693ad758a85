package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.SourceAddresses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompleteChatUseCase;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.testing.InMemoryBillingLedger;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The SSE keep-alive timer lives exactly as long as its stream (G14, G17: no leaked timers). The streams get a
 * timer executor of the test's own that counts every run of a keep-alive look; with a 10 ms keep-alive a live stream
 * ticks about 100 times a second, and a stream that ended — or never started because the request was refused —
 * must not tick at all, nor stay queued.
 */
class SseKeepAliveLifecycleTest {

    private static final String STREAM_BODY = "{\"model\":\"test/model\",\"stream\":true,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final AtomicInteger ticks = new AtomicInteger();
    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1) {
        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return super.schedule(() -> {
                ticks.incrementAndGet();
                task.run();
            }, delay, unit);
        }
    };
    private final ApiKeyPrincipal principal = new ApiKeyPrincipal(ApiKeyId.newId(), new KeyHash("d".repeat(64)),
            AccountId.newId());

    {
        timers.setRemoveOnCancelPolicy(true); // as the gateway's request timers: a cancelled timer leaves the queue
    }

    /** The admission deadline's own timers: its runs are not the keep-alive looks counted here. */
    private final ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
        deadlines.shutdownNow();
    }

    private ChatCompletionsController controller(CompleteChatUseCase useCase) {
        JsonMapper json = JsonMapper.createDefault();
        return new ChatCompletionsController(new ModelApiAuthentication(token -> principal), useCase,
                (caller, origin) -> dev.tollgate.domain.quota.RateLimitReport.NONE, new CompletionResponses(json, Clock.systemUTC(), new SseSettings(Duration.ofMillis(10), Duration.ofSeconds(60)),
                        timers, new CompletionMetrics(new SimpleMeterRegistry(), new InMemoryBillingLedger())),
                json, new SourceAddresses(java.util.List.of(), 64),
                new AdmissionDeadline(Runnable::run, deadlines, Duration.ofMinutes(1), Clock.systemUTC(),
                        new SimpleMeterRegistry()));
    }

    private static HttpRequest<?> streamRequest() {
        return HttpRequest.POST("/v1/chat/completions", STREAM_BODY).header("Authorization", "Bearer gp-test")
                .contentType(io.micronaut.http.MediaType.APPLICATION_JSON_TYPE);
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /** Ticks counted over {@code millis} after a settling pause. */
    private int ticksDuring(long millis) throws InterruptedException {
        sleep(50); // a tick already under way may still finish
        int before = ticks.get();
        sleep(millis);
        return ticks.get() - before;
    }

    @Test
    void aLiveStreamTicksAndAnEndedStreamStops() throws Exception {
        AtomicReference<CompletionObserver> observer = new AtomicReference<>();
        ChatCompletionsController controller = controller((p, request, id, origin, o) -> {
            observer.set(o);
            return () -> {
            };
        });

        controller.complete(streamRequest(), STREAM_BODY.getBytes(StandardCharsets.UTF_8));
        assertNotNull(observer.get());
        assertTrue(ticksDuring(200) > 0, "the probe sees the keep-alive of a live stream");

        observer.get().onFailure(new CompletionFailure(502, "api_error", "upstream_error", "gone", 0, false));

        assertEquals(0, ticksDuring(200), "an ended stream's keep-alive stops");
        assertTrue(timers.getQueue().isEmpty(), "and leaves the timer queue");
    }

    @Test
    void aStreamRefusedBeforeItStartsLeavesNoKeepAliveBehind() throws Exception {
        ChatCompletionsController notFound = controller((p, request, id, origin, o) -> {
            throw new ModelNotFoundException(request.model());
        });
        ChatCompletionsController noQuota = controller((p, request, id, origin, o) -> {
            throw new InsufficientQuotaException(InsufficientQuotaException.Reason.ACCOUNT_BALANCE);
        });

        assertInstanceOf(ModelNotFoundException.class, assertThrows(ExecutionException.class,
                () -> notFound.complete(streamRequest(), STREAM_BODY.getBytes(StandardCharsets.UTF_8)).get())
                .getCause());
        assertInstanceOf(InsufficientQuotaException.class, assertThrows(ExecutionException.class,
                () -> noQuota.complete(streamRequest(), STREAM_BODY.getBytes(StandardCharsets.UTF_8)).get())
                .getCause());

        // The 404 and 429 are answered as JSON by the exception handlers; nothing of the stream may live on.
        assertEquals(0, ticksDuring(200), "a refused stream request left its keep-alive timer running");
        assertTrue(timers.getQueue().isEmpty(), "a refused stream request left a timer queued");
    }
}
