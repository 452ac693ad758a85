package dev.tollgate.domain.apikey;

import java.util.Locale;
import java.util.Optional;

/** Reset period of a key's spend limit (§2.1 {@code limit_reset}); no period means a lifetime total. */
public enum LimitReset {
    DAILY,
    WEEKLY,
    MONTHLY;

    /** The wire name: {@code daily}, {@code weekly} or {@code monthly}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<LimitReset> fromWireName(String name) {
        for (LimitReset reset : values()) {
            if (reset.wireName().equals(name)) {
                return Optional.of(reset);
            }
        }
        return Optional.empty();
    }
}
