package dev.tollgate.application.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture: a {@link ScheduledExecutorService} on virtual time. Nothing runs until a test calls
 * {@link #advance}; then every task that falls due runs on the test's thread, in time order (ties in scheduling
 * order), and tasks they schedule run too if they fall due before the new time. Timers thus fire exactly when
 * expected and never behind the test's back.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long nowNanos;
    private long sequence;
    private boolean shutdown;

    /** Moves virtual time forward, running every task due by then. */
    public void advance(Duration duration) {
        long target;
        synchronized (this) {
            target = nowNanos + duration.toNanos();
        }
        while (true) {
            Task<?> next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.dueNanos > target) {
                    nowNanos = target;
                    return;
                }
                queue.poll();
                nowNanos = Math.max(nowNanos, next.dueNanos);
            }
            next.run();
        }
    }

    /** Runs the tasks due now (for example those scheduled with no delay). */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public synchronized int pending() {
        return (int) queue.stream().filter(t -> !t.isCancelled()).count();
    }

    /** Virtual time elapsed since the scheduler was created. */
    public synchronized Duration elapsed() {
        return Duration.ofNanos(nowNanos);
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return enqueue(() -> {
            command.run();
            return null;
        }, delay, unit);
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return enqueue(callable, delay, unit);
    }

    private <V> ScheduledFuture<V> enqueue(Callable<V> callable, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }
        Task<V> task = new Task<>(callable, nowNanos + Math.max(0, unit.toNanos(delay)), sequence++);
        queue.add(task);
        return task;
    }

    @Override
    public synchronized ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
            TimeUnit unit) {
        return repeat(command, initialDelay, period, unit);
    }

    /** On virtual time a task takes no time, so a fixed delay and a fixed rate are the same schedule. */
    @Override
    public synchronized ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
            TimeUnit unit) {
        return repeat(command, initialDelay, delay, unit);
    }

    private ScheduledFuture<?> repeat(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("the period must be positive");
        }
        Repeating repeating = new Repeating(command, unit.toNanos(period));
        repeating.current = enqueue(repeating, initialDelay, unit);
        return repeating;
    }

    /** A periodic task: each run schedules the next; cancelling stops the chain. */
    private final class Repeating implements Callable<Object>, ScheduledFuture<Object> {
        private final Runnable command;
        private final long periodNanos;
        private volatile ScheduledFuture<Object> current;
        private volatile boolean cancelled;

        Repeating(Runnable command, long periodNanos) {
            this.command = command;
            this.periodNanos = periodNanos;
        }

        @Override
        public Object call() {
            if (!cancelled) {
                command.run();
                synchronized (ManualScheduler.this) {
                    if (!cancelled && !shutdown) {
                        current = enqueue(this, periodNanos, TimeUnit.NANOSECONDS);
                    }
                }
            }
            return null;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            cancelled = true;
            return current.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled;
        }

        @Override
        public Object get() throws InterruptedException, ExecutionException {
            return current.get();
        }

        @Override
        public Object get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException,
                java.util.concurrent.TimeoutException {
            return current.get(timeout, unit);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return current.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return current.compareTo(other);
        }
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(queue);
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task<V> implements ScheduledFuture<V>, Runnable {
        private final Callable<V> callable;
        private final long dueNanos;
        private final long seq;
        private boolean cancelled;
        private boolean done;
        private V result;
        private Throwable failure;

        Task(Callable<V> callable, long dueNanos, long seq) {
            this.callable = callable;
            this.dueNanos = dueNanos;
            this.seq = seq;
        }

        @Override
        public void run() {
            synchronized (ManualScheduler.this) {
                if (cancelled || done) {
                    return;
                }
            }
            try {
                V value = callable.call();
                synchronized (ManualScheduler.this) {
                    result = value;
                }
            } catch (Exception e) {
                synchronized (ManualScheduler.this) {
                    failure = e;
                }
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            } finally {
                synchronized (ManualScheduler.this) {
                    done = true;
                }
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (ManualScheduler.this) {
                return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed other) {
            Task<?> that = (Task<?>) other;
            int byTime = Long.compare(dueNanos, that.dueNanos);
            return byTime != 0 ? byTime : Long.compare(seq, that.seq);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (ManualScheduler.this) {
                if (done) {
                    return false;
                }
                cancelled = true;
                queue.remove(this);
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (ManualScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (ManualScheduler.this) {
                return done || cancelled;
            }
        }

        @Override
        public V get() throws ExecutionException {
            synchronized (ManualScheduler.this) {
                if (!done) {
                    throw new IllegalStateException("virtual time has not reached this task; call advance()");
                }
                if (failure != null) {
                    throw new ExecutionException(failure);
                }
                return result;
            }
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws ExecutionException {
            return get();
        }
    }
}
