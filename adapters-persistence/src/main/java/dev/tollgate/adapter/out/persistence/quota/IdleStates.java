package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.domain.quota.QuotaState;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Persistence adapter: the in-process store's bucket states, forgotten once idle for as long as anything in them
 * could still count ({@link QuotaState#idleTtlMillis()} since the last look or change). A plain hash map — a
 * decision looks up some twenty buckets, and an evicting cache with a timer per entry doubled its cost (4.1–4.7 µs
 * against 2.2–2.5 µs per decision and release, measured) — plus a sweep that looks at a few entries per decision,
 * round the ring of keys, and drops the idle ones: constant work per decision, and with n buckets every one is
 * looked at within n ÷ {@value #SWEEP} decisions. Times are the store's callers' ({@link #at}), so idleness follows
 * the same clock as the windows. Not thread-safe: the store calls it under its stripe's lock.
 */
final class IdleStates extends AbstractMap<String, QuotaState> {

    static final int SWEEP = 2;

    private static final class Slot {
        final String key;
        QuotaState state;
        long touched;
        int index;

        Slot(String key, QuotaState state, long touched, int index) {
            this.key = key;
            this.state = state;
            this.touched = touched;
            this.index = index;
        }
    }

    private final HashMap<String, Slot> slots = new HashMap<>(64);
    private final ArrayList<Slot> ring = new ArrayList<>(64);
    private long now = Long.MIN_VALUE;
    private int cursor;

    /** The time of the decision about to use these states (milliseconds, the caller's clock). */
    void at(long nowMillis) {
        now = Math.max(now, nowMillis);
    }

    @Override
    public QuotaState get(Object key) {
        Slot slot = slots.get(key);
        if (slot == null) {
            return null;
        }
        slot.touched = now;
        return slot.state;
    }

    @Override
    public QuotaState put(String key, QuotaState state) {
        Slot slot = slots.get(key);
        if (slot != null) {
            QuotaState old = slot.state;
            slot.state = state;
            slot.touched = now;
            return old;
        }
        slot = new Slot(key, state, now, ring.size());
        slots.put(key, slot);
        ring.add(slot);
        return null;
    }

    @Override
    public QuotaState remove(Object key) {
        Slot slot = slots.remove(key);
        if (slot == null) {
            return null;
        }
        unlink(slot);
        return slot.state;
    }

    @Override
    public int size() {
        return slots.size();
    }

    /** Looks at the next {@value #SWEEP} buckets round the ring and drops those that are idle. */
    void sweep() {
        for (int i = 0; i < SWEEP && !ring.isEmpty(); i++) {
            if (cursor >= ring.size()) {
                cursor = 0;
            }
            Slot slot = ring.get(cursor);
            if (idle(slot)) {
                slots.remove(slot.key);
                unlink(slot); // the last slot moves here: look at this place again next time
            } else {
                cursor++;
            }
        }
    }

    /** Drops every idle bucket now (for gauges and tests; decisions sweep a few at a time). */
    void sweepAll() {
        for (int i = ring.size() - 1; i >= 0; i--) {
            Slot slot = ring.get(i);
            if (idle(slot)) {
                slots.remove(slot.key);
                unlink(slot);
            }
        }
    }

    private boolean idle(Slot slot) {
        long ttl = slot.state.idleTtlMillis();
        return ttl != Long.MAX_VALUE && now - slot.touched >= ttl;
    }

    private void unlink(Slot slot) {
        Slot last = ring.remove(ring.size() - 1);
        if (last != slot) {
            ring.set(slot.index, last);
            last.index = slot.index;
        }
    }

    @Override
    public Set<Entry<String, QuotaState>> entrySet() {
        return slots.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().state, (a, b) -> a,
                        LinkedHashMap::new))
                .entrySet();
    }
}
