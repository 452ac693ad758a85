package dev.tollgate.domain.managementkey;

import java.util.Locale;
import java.util.Optional;

/** Access mode of a management key (§5.6). */
public enum ManagementAccess {
    /** GET routes only. */
    READ_ONLY,
    /** All five operations. */
    READ_WRITE;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<ManagementAccess> fromWireName(String name) {
        for (ManagementAccess access : values()) {
            if (access.wireName().equals(name)) {
                return Optional.of(access);
            }
        }
        return Optional.empty();
    }

    public boolean canWrite() {
        return this == READ_WRITE;
    }
}
