package dev.tollgate.adapter.out.persistence.common;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Group commit: callers hand in one item each and wait; a single writer thread takes everything that queued up
 * meanwhile (up to {@code maxBatch}) and writes it in one transaction. Under load many requests share one commit
 * and one update of each hot row; alone, a request pays one transaction as before. A batch that fails fails every
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

    private record Pending<T, R>(T item, CompletableFuture<R> result) {
    }

    private final BlockingQueue<Pending<T, R>> queue = new LinkedBlockingQueue<>();
    private final Writer<T, R> writer;
    private final int maxBatch;
    private final Thread thread;
    private volatile boolean closed;

    public GroupCommit(String name, int maxBatch, Writer<T, R> writer) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("a batch holds at least one item");
        }
        this.writer = writer;
        this.maxBatch = maxBatch;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues {@code item} and waits until its batch is committed (or failed), at most {@code timeout}. */
    public R submit(T item, long timeout, TimeUnit unit) {
        if (closed) {
            throw new IllegalStateException("the " + thread.getName() + " writer is closed");
        }
        CompletableFuture<R> result = new CompletableFuture<>();
        queue.add(new Pending<>(item, result));
        try {
            return result.get(timeout, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + thread.getName() + " writer", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the " + thread.getName() + " writer did not commit within "
                    + unit.toMillis(timeout) + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        }
    }

    private void run() {
        List<Pending<T, R>> batch = new ArrayList<>(maxBatch);
        while (!closed || !queue.isEmpty()) {
            try {
                Pending<T, R> first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, maxBatch - 1);
                write(batch);
            } catch (InterruptedException e) {
                if (closed) {
                    break;
                }
            } finally {
                batch.clear();
            }
        }
        Pending<T, R> left;
        while ((left = queue.poll()) != null) {
            left.result().completeExceptionally(new IllegalStateException("shutting down"));
        }
    }

    private void write(List<Pending<T, R>> batch) {
        List<T> items = new ArrayList<>(batch.size());
        for (Pending<T, R> pending : batch) {
            items.add(pending.item());
        }
        try {
            List<R> results = writer.write(items);
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result().complete(results.get(i));
            }
        } catch (Exception | Error e) {
            for (Pending<T, R> pending : batch) {
                pending.result().completeExceptionally(e);
            }
        }
    }

    /** Writes what is queued, then stops the writer. */
    @Override
    public void close() {
        closed = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
