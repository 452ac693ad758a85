package dev.tollgate.domain.quota;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Exact distinct members within a sliding window (distinct source IPs per key, distinct keys per IP, §8.1): each
 * member with the last time it was seen, least recently seen first. A member seen inside the window always passes;
 * a new one only while fewer than {@code limit} are inside it. Not thread-safe.
 */
public final class DistinctLog implements QuotaState {

    private final long window;
    private final LinkedHashMap<String, Long> seen = new LinkedHashMap<>();
    private long last = Long.MIN_VALUE;

    public DistinctLog(long windowMillis) {
        if (windowMillis < 1) {
            throw new IllegalArgumentException("window must be positive");
        }
        this.window = windowMillis;
    }

    private void prune(long now) {
        Iterator<Map.Entry<String, Long>> oldest = seen.entrySet().iterator();
        while (oldest.hasNext() && oldest.next().getValue() + window <= now) {
            oldest.remove();
        }
    }

    public long used(long now) {
        prune(now);
        return seen.size();
    }

    /**
     * 0 when {@code member} may be seen now; else the milliseconds until a place frees up: until the
     * {@code size - limit + 1} least recently seen members have left (a set may hold more than the limit it is checked
     * against — a failover's share of it, members handed over after an outage).
     */
    public long waitMillis(long now, String member, long limit) {
        prune(now);
        if (seen.size() < limit || seen.containsKey(member)) {
            return 0;
        }
        Iterator<Long> times = seen.values().iterator();
        long leaves = times.next();
        for (long over = seen.size() - Math.max(limit, 1); over > 0; over--) {
            leaves = times.next();
        }
        return leaves + window - now;
    }

    public long resetMillis(long now) {
        prune(now);
        return seen.isEmpty() ? 0 : last + window - now;
    }

    public void record(long now, String member) {
        long t = Math.max(now, last);
        last = t;
        seen.remove(member);
        seen.put(member, t);
    }

    @Override
    public long idleTtlMillis() {
        return window;
    }
}
