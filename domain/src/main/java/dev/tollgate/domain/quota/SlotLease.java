package dev.tollgate.domain.quota;

import java.util.List;
import java.util.Objects;

/** The concurrency slots one admitted request holds until it ends; {@link #NONE} when it holds none. */
public record SlotLease(String id, List<Bucket> slots) {

    public static final SlotLease NONE = new SlotLease("none", List.of());

    public SlotLease {
        Objects.requireNonNull(id);
        slots = List.copyOf(slots);
    }

    public boolean isEmpty() {
        return slots.isEmpty();
    }
}
