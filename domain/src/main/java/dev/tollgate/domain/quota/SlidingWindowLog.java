package dev.tollgate.domain.quota;

/**
 * An exact sliding window: the admission times still inside the window, oldest first, in a ring that grows as
 * admissions come (never beyond the limit). Admitted iff fewer than {@code limit} admissions lie in
 * {@code (now − window, now]}, so no window of that length ever holds more than the limit (G6) — unlike a token
 * bucket, which admits up to twice the limit in the first window. Times never go backwards inside one log (a
 * clock step back is taken as "no time passed"). Not thread-safe.
 */
public final class SlidingWindowLog implements QuotaState {

    private final long window;
    private long[] times = new long[8];
    private int head;
    private int size;
    private long last = Long.MIN_VALUE;

    public SlidingWindowLog(long windowMillis) {
        if (windowMillis < 1) {
            throw new IllegalArgumentException("window must be positive");
        }
        this.window = windowMillis;
    }

    private long at(int index) {
        return times[(head + index) % times.length];
    }

    private void prune(long now) {
        while (size > 0 && times[head] + window <= now) {
            head = (head + 1) % times.length;
            size--;
        }
    }

    /** Admissions inside the window ending at {@code now}. */
    public long used(long now) {
        prune(now);
        return size;
    }

    /** 0 when one more admission fits now; else the milliseconds until it does. */
    public long waitMillis(long now, long limit) {
        prune(now);
        if (size < limit) {
            return 0;
        }
        // The (size − limit + 1) oldest must leave before there is room for one more.
        return at((int) (size - limit)) + window - now;
    }

    /** Milliseconds until nothing counts any more (the newest admission has left the window). */
    public long resetMillis(long now) {
        prune(now);
        return size == 0 ? 0 : at(size - 1) + window - now;
    }

    public void record(long now, long limit) {
        long t = Math.max(now, last);
        last = t;
        prune(t);
        if (size == times.length) {
            if (times.length >= limit) {
                head = (head + 1) % times.length; // only the last `limit` admissions can ever decide
                size--;
            } else {
                grow((int) Math.min(limit, (long) times.length * 2));
            }
        }
        times[(head + size) % times.length] = t;
        size++;
    }

    private void grow(int capacity) {
        long[] bigger = new long[capacity];
        for (int i = 0; i < size; i++) {
            bigger[i] = at(i);
        }
        times = bigger;
        head = 0;
    }

    @Override
    public long idleTtlMillis() {
        return window;
    }
}
