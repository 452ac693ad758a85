package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.ClientConnection;
import dev.tollgate.adapter.in.http.common.RequestIds;
import dev.tollgate.application.port.in.completions.ClientAnsweredException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.propagation.PropagatedContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP adapter: a completion request waits at most {@code tollgate.admission-timeout} (900 ms) for the database
 * before it is admitted — its key lookup and its prepaid hold together, not the reading of its prompt or the traffic
 * limits, which have their own policy — and is answered {@code 503} when that runs out (reliability goal G9: spend
 * checks fail closed, and fast). A database that answers, only slowly, would otherwise keep clients waiting for
 * seconds: a hold takes a few round trips, each under the statement timeout. The admission goes on in the
 * background; when it ends after the answer, nothing goes upstream and what it took is given back
 * ({@link dev.tollgate.application.port.in.completions.CompletionObserver#onReady()}).
 *
 * <p>The request runs on the blocking executor as it would under {@code @ExecuteOn}, so the answer can be sent
 * while that thread still waits for the database.
 */
@Singleton
public final class AdmissionDeadline {

    private static final Logger LOG = LoggerFactory.getLogger(AdmissionDeadline.class);

    private final Executor blocking;
    private final ScheduledExecutorService timers;
    private final long timeoutNanos;
    private final Clock clock;
    /** Requests answered at the deadline, with the other failures of completions (code service_unavailable). */
    private final Counter expired;

    AdmissionDeadline(@Named(TaskExecutors.BLOCKING) Executor blocking,
            @Named("request-timers") ScheduledExecutorService timers,
            @Value("${tollgate.admission-timeout:900ms}") Duration timeout, Clock clock, MeterRegistry registry) {
        this.expired = Counter.builder("tollgate.completion.failures").tag("code", "service_unavailable")
                .register(registry);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("TOLLGATE_ADMISSION_TIMEOUT must be a positive duration, was "
                    + timeout);
        }
        this.blocking = blocking;
        this.timers = timers;
        this.timeoutNanos = timeout.toNanos();
        this.clock = clock;
    }

    /**
     * Runs {@code work} (the whole handling of the request) on the blocking executor and answers with what it
     * answers — or with a 503 when its admission outlasts the deadline.
     */
    public CompletableFuture<MutableHttpResponse<?>> run(HttpRequest<?> request,
            Function<Admission, CompletableFuture<MutableHttpResponse<?>>> work) {
        Admission admission = new Admission(request, timers, timeoutNanos, clock, expired);
        Runnable task = PropagatedContext.wrapCurrent(() -> admission.handle(work));
        try {
            blocking.execute(task);
        } catch (RejectedExecutionException stopping) {
            admission.answer.completeExceptionally(stopping);
        }
        return admission.answer;
    }

    /** One request's admission: its budget of database time, and whether it was answered at the deadline. */
    public static final class Admission {
        private static final int WAITING = 0;
        private static final int PAUSED = 1;
        private static final int READY = 2;
        private static final int TIMED_OUT = 3;

        private final HttpRequest<?> request;
        private final ScheduledExecutorService timers;
        private final long timeoutNanos;
        private final Clock clock;
        private final Counter expired;
        private final CompletableFuture<MutableHttpResponse<?>> answer = new CompletableFuture<>();
        private int state = WAITING;
        private long leftNanos;
        private long sinceNanos = System.nanoTime();
        private Future<?> deadline;

        private Admission(HttpRequest<?> request, ScheduledExecutorService timers, long timeoutNanos, Clock clock,
                Counter expired) {
            this.expired = expired;
            this.request = request;
            this.timers = timers;
            this.timeoutNanos = timeoutNanos;
            this.leftNanos = timeoutNanos;
            this.clock = clock;
            arm();
        }

        /** An admission without a deadline (a stream driven directly, in tests). */
        static Admission unbounded() {
            return new Admission(null, null, Long.MAX_VALUE, null, null);
        }

        private void handle(Function<Admission, CompletableFuture<MutableHttpResponse<?>>> work) {
            CompletableFuture<MutableHttpResponse<?>> answered;
            try {
                answered = work.apply(this);
            } catch (RuntimeException | Error e) {
                answered = CompletableFuture.failedFuture(e);
            }
            answered.whenComplete((response, error) -> {
                if (error != null) {
                    answer.completeExceptionally(error); // a no-op once answered at the deadline
                } else {
                    answer.complete(response);
                }
                answered();
            });
        }

        /**
         * The caller is known (its key looked up): the time until its hold does not count — the reading of the
         * prompt, the traffic limits. Throws {@link ClientAnsweredException} when the client was answered at the
         * deadline meanwhile, so the rest of the request is left undone.
         */
        public synchronized void authenticated() {
            if (state == TIMED_OUT) {
                throw new ClientAnsweredException();
            }
            if (state == WAITING) {
                leftNanos -= System.nanoTime() - sinceNanos;
                state = PAUSED;
                disarm();
            }
        }

        /** The request waits for the database again (its hold): the rest of the budget runs from here. */
        public synchronized void resume() {
            if (state == PAUSED) {
                state = WAITING;
                sinceNanos = System.nanoTime();
                arm();
            }
        }

        /**
         * The admission is over and the request goes upstream: true, unless the client was answered at the deadline
         * or has left meanwhile (then nothing may run: on a busy or just-started instance, requests whose clients
         * had given up while they waited for their admission still went upstream, an audit found).
         */
        public synchronized boolean ready() {
            if (state == TIMED_OUT || clientGone()) {
                return false;
            }
            state = READY;
            disarm();
            return true;
        }

        /** Whether the client's connection closed. */
        public boolean clientGone() {
            return request != null && ClientConnection.isClosed(request);
        }

        private synchronized void answered() {
            disarm();
        }

        private void arm() {
            if (timers == null) {
                return;
            }
            deadline = timers.schedule(this::expire, Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
        }

        private void disarm() {
            Future<?> armed = deadline;
            if (armed != null) {
                armed.cancel(false);
                deadline = null;
            }
        }

        private void expire() {
            synchronized (this) {
                if (state != WAITING || answer.isDone()) {
                    return;
                }
                state = TIMED_OUT;
                deadline = null;
            }
            expired.increment();
            String requestId = RequestIds.of(request);
            long millis = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
            LOG.warn("{} {} ({}) not admitted within {} ms (database slow or gateway overloaded): answered 503",
                    request.getMethodName(), request.getPath(), requestId, millis);
            answer.complete(ApiErrors.storeUnavailable(request, "The request could not be admitted within " + millis
                    + " ms: the gateway's database is slow or unavailable, or the gateway is overloaded", clock));
        }
    }
}
