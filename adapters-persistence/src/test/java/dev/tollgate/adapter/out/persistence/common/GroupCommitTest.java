package dev.tollgate.adapter.out.persistence.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

    @Test
    void aLoneCallerWritesItsOwnItemOnItsOwnThread() {
        List<String> writers = new ArrayList<>();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 10, batch -> {
            writers.add(Thread.currentThread().getName());
            return batch.stream().map(i -> i * 2).toList();
        });
        assertEquals(42, commit.submit(21, 1, TimeUnit.SECONDS));
        assertEquals(List.of(Thread.currentThread().getName()), writers);
    }

    @Test
    void withALingerCallersArrivingOneByOneShareOneBatch() throws Exception {
        List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 10, TimeUnit.MILLISECONDS.toNanos(300),
                batch -> {
                    batches.add(List.copyOf(batch));
                    return batch;
                });
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int item = i;
                results.add(pool.submit(() -> commit.submit(item, 5, TimeUnit.SECONDS)));
                Thread.sleep(20); // one by one, each well within the first caller's linger
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(i, results.get(i).get(5, TimeUnit.SECONDS));
            }
            assertEquals(List.of(List.of(0, 1, 2)), batches, "one batch for the three callers");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFullQueueIsWrittenWithoutLingering() {
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 1, TimeUnit.SECONDS.toNanos(30),
                batch -> batch);
        long start = System.nanoTime();
        assertEquals(7, commit.submit(7, 10, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "a batch of one is full: no wait");
    }

    @Test
    void concurrentCallersShareBatchesAndEachGetsItsOwnResultExactlyOnce() throws Exception {
        List<Integer> written = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlap = new AtomicInteger();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 16, batch -> {
            if (inside.incrementAndGet() > 1) {
                overlap.incrementAndGet();
            }
            batches.incrementAndGet();
            Thread.sleep(2); // a transaction takes a while, so callers queue up meanwhile
            written.addAll(batch);
            inside.decrementAndGet();
            return batch.stream().map(i -> -i).toList();
        });
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            int item = i;
            results.add(pool.submit(() -> {
                go.await();
                return commit.submit(item, 30, TimeUnit.SECONDS);
            }));
        }
        go.countDown();
        for (int i = 0; i < results.size(); i++) {
            assertEquals(-i, results.get(i).get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(2000, written.size());
        Set<Integer> distinct = new HashSet<>(written);
        assertEquals(2000, distinct.size(), "every item written exactly once");
        assertEquals(0, overlap.get(), "one batch at a time");
        assertTrue(batches.get() < 2000 / 4, batches.get() + " batches: concurrent callers did not share commits");
    }

    @Test
    void aFailedBatchFailsItsCallersWithItsErrorAndTheNextBatchWorks() {
        AtomicInteger calls = new AtomicInteger();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 10, batch -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("database unavailable");
            }
            return batch;
        });
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> commit.submit(1, 1, TimeUnit.SECONDS));
        assertEquals("database unavailable", error.getMessage());
        assertEquals(2, commit.submit(2, 1, TimeUnit.SECONDS));
    }

    @Test
    void aClosedCommitRefusesNewItems() {
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 10, batch -> batch);
        commit.close();
        assertThrows(IllegalStateException.class, () -> commit.submit(1, 1, TimeUnit.SECONDS));
    }

    @Test
    void aCallerWaitingBehindAStuckBatchGivesUpAtItsTimeoutAndItsItemIsNotWritten() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> written = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 1, batch -> {
            release.await();
            written.addAll(batch);
            return batch;
        });
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Integer> stuck = pool.submit(() -> commit.submit(1, 30, TimeUnit.SECONDS));
        Thread.sleep(50);
        long start = System.nanoTime();
        assertThrows(IllegalStateException.class, () -> commit.submit(2, 200, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        release.countDown();
        assertEquals(1, stuck.get(10, TimeUnit.SECONDS));
        assertEquals(3, commit.submit(3, 1, TimeUnit.SECONDS));
        assertEquals(List.of(1, 3), written, "the abandoned item 2 was dropped, not written behind its caller's back");
        pool.shutdown();
    }
}
