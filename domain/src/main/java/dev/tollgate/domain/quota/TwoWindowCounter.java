package dev.tollgate.domain.quota;

/**
 * An amount per sliding window, estimated from two fixed windows: everything of the current one plus the part of
 * the previous one that the sliding window still covers (weighted linearly). Used for estimated tokens, which are
 * an estimate anyway, and for the behavioural counters; cheap and bounded (two numbers), and the same arithmetic
 * runs in the Redis store. Not thread-safe.
 */
public final class TwoWindowCounter implements QuotaState {

    private final long window;
    private long index = Long.MIN_VALUE;
    private long current;
    private long previous;

    public TwoWindowCounter(long windowMillis) {
        if (windowMillis < 1) {
            throw new IllegalArgumentException("window must be positive");
        }
        this.window = windowMillis;
    }

    private void roll(long now) {
        long at = Math.floorDiv(now, window);
        if (at <= index) {
            return; // same window, or the clock stepped back
        }
        previous = at == index + 1 ? current : 0;
        current = 0;
        index = at;
    }

    /** The amount in the sliding window ending at {@code now}. */
    public long estimate(long now) {
        roll(now);
        long remainingOfPrevious = window - (now - index * window);
        return saturatedAdd(current, scale(previous, remainingOfPrevious, window));
    }

    /**
     * 0 when {@code amount} more fits under {@code limit} now; else the milliseconds until it fits, if nothing is
     * added meanwhile: the estimate falls as the previous window slides out (this window's part of it) and then as
     * this window does (the next one's). An amount over the limit never fits: the time to the next window.
     */
    public long waitMillis(long now, long limit, long amount) {
        if (saturatedAdd(estimate(now), amount) <= limit) {
            return 0;
        }
        long boundary = (index + 1) * window;
        long room = limit - amount; // what may still count when the request is admitted
        if (room < 0) {
            return boundary - now;
        }
        if (current <= room && previous > 0) {
            // Within this window: current + previous × (boundary − t) ÷ window ≤ room once t is late enough.
            return Math.max(1, boundary - stillCounted(previous, room - current) - now);
        }
        // In the next window, where this window's amount is the previous one sliding out.
        return Math.max(1, boundary + window - stillCounted(current, room) - now);
    }

    /**
     * The longest part of a window (in milliseconds) over which {@code amount} may still be counted, weighted as
     * {@link #estimate} weighs it, for the weighted amount to be at most {@code room}.
     */
    private long stillCounted(long amount, long room) {
        long part = Math.min(window, scale(saturatedAdd(room, 1), window, amount));
        return part > 0 && scale(amount, part, window) > room ? part - 1 : part;
    }

    /** Milliseconds until nothing counts any more. */
    public long resetMillis(long now) {
        roll(now);
        if (current > 0) {
            return (index + 2) * window - now;
        }
        return previous > 0 ? (index + 1) * window - now : 0;
    }

    public void add(long now, long amount) {
        roll(now);
        current = saturatedAdd(current, amount);
    }

    /** {@code value × numerator ÷ denominator} without overflow for any value and windows up to days. */
    private static long scale(long value, long numerator, long denominator) {
        return (value / denominator) * numerator + (value % denominator) * numerator / denominator;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    @Override
    public long idleTtlMillis() {
        return 2 * window;
    }
}
