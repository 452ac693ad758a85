package dev.tollgate.adapter.out.persistence.common;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit: every caller queues its item and waits; whichever caller finds the writer free becomes the leader
 * and writes everything queued so far (up to {@code maxBatch}) in one transaction, again and again until its own
 * item is written. Under load many requests share one commit and one update of each hot row; alone, a request
 * writes its own item on its own thread, with no hand-over to another thread. A batch that fails fails every
 * caller in it with the batch's error.
 *
 * @param <T> what a caller hands in
 * @param <R> what each caller gets back
 */
public final class GroupCommit<T, R> implements AutoCloseable {

    /** Writes one batch and returns one result per item, in order. */
    @FunctionalInterface
    public interface Writer<T, R> {
        List<R> write(List<T> batch) throws Exception;
    }

    /**
     * How long a waiter sleeps before it looks again on its own. Waiters are woken when their item is written and
     * when a leader finishes (the head of the queue is told to lead the rest), so this is only a safety net — for a
     * head that gave up waiting. Short nudges cost dearly: with a hundred callers waiting under load, a 1 ms nudge
     * was 100,000 wake-ups a second, which took the CPU the writer needed and made the queue longer still.
     */
    private static final long NUDGE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final class Pending<T, R> {
        final T item;
        final Thread waiter = Thread.currentThread();
        final CompletableFuture<R> result = new CompletableFuture<>();

        Pending(T item) {
            this.item = item;
        }
    }

    private final ConcurrentLinkedQueue<Pending<T, R>> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock writing = new ReentrantLock();
    private final String name;
    private final Writer<T, R> writer;
    private final int maxBatch;
    private final long lingerNanos;
    private volatile boolean closed;

    public GroupCommit(String name, int maxBatch, Writer<T, R> writer) {
        this(name, maxBatch, 0, writer);
    }

    /**
     * @param lingerNanos how long a leader waits for more items before it writes a batch that is not full: a little
     *                    later, but one transaction for several callers when they arrive one by one (0: never waits)
     */
    public GroupCommit(String name, int maxBatch, long lingerNanos, Writer<T, R> writer) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("a batch holds at least one item");
        }
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("a linger is not negative");
        }
        this.name = name;
        this.writer = writer;
        this.maxBatch = maxBatch;
        this.lingerNanos = lingerNanos;
    }

    /** Queues {@code item} and returns once its batch is committed; throws the batch's error or after a timeout. */
    public R submit(T item, long timeout, TimeUnit unit) {
        if (closed) {
            throw new IllegalStateException("the " + name + " writer is closed");
        }
        Pending<T, R> own = new Pending<>(item);
        queue.add(own);
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!own.result.isDone()) {
            if (writing.tryLock()) {
                try {
                    while (!own.result.isDone()) {
                        writeNextBatch();
                    }
                } finally {
                    writing.unlock();
                }
                Pending<T, R> next = queue.peek();
                if (next != null) {
                    LockSupport.unpark(next.waiter); // someone must lead the rest
                }
                break;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                // A batch already being written may still commit this item; one still queued is dropped.
                IllegalStateException late = new IllegalStateException("the " + name + " writer did not commit "
                        + "within " + unit.toMillis(timeout) + " ms");
                if (own.result.completeExceptionally(late)) {
                    throw late;
                }
                continue; // completed just now: report that
            }
            LockSupport.parkNanos(this, Math.min(left, NUDGE_NANOS));
            if (Thread.currentThread().isInterrupted()) {
                IllegalStateException interrupted = new IllegalStateException("interrupted while waiting for the "
                        + name + " writer");
                if (own.result.completeExceptionally(interrupted)) { // still queued: it will not be written
                    throw interrupted;
                }
            }
        }
        try {
            return own.result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + name + " writer", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        }
    }

    /** Called with the write lock held. */
    private void writeNextBatch() {
        if (lingerNanos > 0 && !closed && !fullBatchQueued()) {
            LockSupport.parkNanos(this, lingerNanos); // an unpark only ends it early
        }
        List<Pending<T, R>> batch = new ArrayList<>();
        Pending<T, R> pending;
        while (batch.size() < maxBatch && (pending = queue.poll()) != null) {
            if (!pending.result.isDone()) { // its caller gave up waiting: not written
                batch.add(pending);
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        List<T> items = new ArrayList<>(batch.size());
        for (Pending<T, R> p : batch) {
            items.add(p.item);
        }
        try {
            List<R> results = writer.write(items);
            for (int i = 0; i < batch.size(); i++) {
                complete(batch.get(i), results.get(i), null);
            }
        } catch (Exception | Error e) {
            for (Pending<T, R> p : batch) {
                complete(p, null, e);
            }
        }
    }

    private boolean fullBatchQueued() {
        int queued = 0;
        for (Pending<T, R> ignored : queue) {
            if (++queued >= maxBatch) {
                return true;
            }
        }
        return false;
    }

    private static <T, R> void complete(Pending<T, R> pending, R result, Throwable error) {
        if (error == null) {
            pending.result.complete(result);
        } else {
            pending.result.completeExceptionally(error);
        }
        if (pending.waiter != Thread.currentThread()) {
            LockSupport.unpark(pending.waiter);
        }
    }

    /** Refuses new items; what is queued is still written by its callers. */
    @Override
    public void close() {
        closed = true;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Runs {@code task} while no batch is being written (tests and shutdown). */
    public void whileIdle(Runnable task) {
        writing.lock();
        try {
            task.run();
        } finally {
            writing.unlock();
        }
    }
}
