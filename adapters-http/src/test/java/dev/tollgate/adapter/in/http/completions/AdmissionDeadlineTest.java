package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.ClientAnsweredException;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A completion request waits at most the admission deadline for the database (G9): past it the client gets the 503
 * envelope at once while the admission goes on, and what the admission finishes afterwards may not run. The time
 * between the key lookup and the hold (reading the prompt, the traffic limits) does not count.
 */
class AdmissionDeadlineTest {

    private static final Duration DEADLINE = Duration.ofMillis(200);

    private final ExecutorService blocking = Executors.newCachedThreadPool();
    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AdmissionDeadline deadline = new AdmissionDeadline(blocking, timers, DEADLINE, Clock.systemUTC(),
            registry);

    {
        timers.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        blocking.shutdownNow();
        timers.shutdownNow();
    }

    private static HttpRequest<?> request() {
        return HttpRequest.POST("/v1/chat/completions", "{}");
    }

    @Test
    void aRequestAdmittedInTimeGetsItsOwnAnswerAndLeavesNoTimerBehind() throws Exception {
        MutableHttpResponse<?> own = HttpResponse.ok("answer");

        CompletableFuture<MutableHttpResponse<?>> answer = deadline.run(request(), admission -> {
            admission.authenticated();
            admission.resume();
            assertTrue(admission.ready());
            return CompletableFuture.completedFuture(own);
        });

        assertSame(own, answer.get(5, TimeUnit.SECONDS));
        Thread.sleep(DEADLINE.toMillis() * 2);
        assertEquals(0, timers.getQueue().size(), "the deadline was disarmed when the request was admitted");
    }

    @Test
    void aHoldThatOutlastsTheDeadlineIsAnswered503AtTheDeadlineAndMayNotRunAfterwards() throws Exception {
        CountDownLatch databaseAnswers = new CountDownLatch(1);
        AtomicBoolean mayRun = new AtomicBoolean(true);
        CountDownLatch admissionEnded = new CountDownLatch(1);
        long startNanos = System.nanoTime();

        CompletableFuture<MutableHttpResponse<?>> answer = deadline.run(request(), admission -> {
            admission.authenticated();
            admission.resume(); // the hold begins: the database stalls
            try {
                databaseAnswers.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            mayRun.set(admission.ready());
            admissionEnded.countDown();
            return new CompletableFuture<>();
        });

        MutableHttpResponse<?> response = answer.get(5, TimeUnit.SECONDS);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        assertEquals(503, response.code());
        assertEquals("2", response.getHeaders().get("Retry-After"));
        @SuppressWarnings("unchecked")
        Map<String, Object> error = (Map<String, Object>) ((Map<String, Object>) response.body()).get("error");
        assertEquals("service_unavailable", error.get("code"));
        assertTrue(((String) error.get("message")).contains("could not be admitted within 200 ms: the gateway's database is slow or unavailable, or the gateway is overloaded; nothing was sent "
                + "upstream or charged"), error.toString());
        assertTrue(waitedMillis >= DEADLINE.toMillis() && waitedMillis < 2_000, "answered at the deadline, after "
                + waitedMillis + " ms");
        assertEquals(1.0, registry.counter("tollgate.completion.failures", "code", "service_unavailable").count(),
                "counted with the completions' other failures");

        databaseAnswers.countDown(); // the hold is placed after all
        assertTrue(admissionEnded.await(5, TimeUnit.SECONDS));
        assertFalse(mayRun.get(), "a request answered at the deadline must not go upstream");
    }

    @Test
    void aKeyLookupThatOutlastsTheDeadlineLeavesTheRestUndone() throws Exception {
        CountDownLatch databaseAnswers = new CountDownLatch(1);
        AtomicReference<Throwable> afterLookup = new AtomicReference<>();
        CountDownLatch lookupEnded = new CountDownLatch(1);

        CompletableFuture<MutableHttpResponse<?>> answer = deadline.run(request(), admission -> {
            try {
                databaseAnswers.await(); // the key lookup stalls
                admission.authenticated();
            } catch (RuntimeException | InterruptedException e) {
                afterLookup.set(e);
            } finally {
                lookupEnded.countDown();
            }
            return CompletableFuture.completedFuture(HttpResponse.ok());
        });

        assertEquals(503, answer.get(5, TimeUnit.SECONDS).code());
        databaseAnswers.countDown();
        assertTrue(lookupEnded.await(5, TimeUnit.SECONDS));
        assertInstanceOf(ClientAnsweredException.class, afterLookup.get());
    }

    @Test
    void timeBetweenTheKeyLookupAndTheHoldDoesNotCount() throws Exception {
        CompletableFuture<MutableHttpResponse<?>> answer = deadline.run(request(), admission -> {
            admission.authenticated();
            try {
                Thread.sleep(DEADLINE.toMillis() * 3); // a long prompt being counted; the traffic limits
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            admission.resume();
            assertTrue(admission.ready(), "the hold came at once: the request runs");
            return CompletableFuture.completedFuture(HttpResponse.ok("ran"));
        });

        assertEquals(200, answer.get(5, TimeUnit.SECONDS).code());
    }

    @Test
    void aRefusalIsTheAnswerAsThrown() {
        InsufficientQuotaException refused = new InsufficientQuotaException(
                InsufficientQuotaException.Reason.ACCOUNT_BALANCE);

        CompletableFuture<MutableHttpResponse<?>> answer = deadline.run(request(), admission -> {
            admission.authenticated();
            throw refused;
        });

        ExecutionException failed = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
        assertSame(refused, failed.getCause());
    }
}
