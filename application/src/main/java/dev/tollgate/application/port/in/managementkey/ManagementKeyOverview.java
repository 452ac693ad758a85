package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyPolicy;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import java.util.List;
import java.util.Objects;

/** An account's management keys, newest first, each with its state now, and how many are active (§8.3). */
public record ManagementKeyOverview(List<Entry> keys, long active) {

    public ManagementKeyOverview {
        keys = List.copyOf(keys);
    }

    /** §8.3: whether another key may be created or enabled. */
    public boolean roomForAnother() {
        return ManagementKeyPolicy.roomForAnotherActiveKey(active);
    }

    public int maxActive() {
        return ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT;
    }

    /** A key and its state (active, disabled or expired). */
    public record Entry(ManagementKey key, ManagementKeyState state) {
        public Entry {
            Objects.requireNonNull(key);
            Objects.requireNonNull(state);
        }
    }
}
