package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * §8.1 local request-limit cooldown: {@code blocks} request-limit blocks of one scope within {@code within} put the
 * scope's next request into a cooldown of {@code cooldown}. Defaults: 3 blocks within 60 s, 30 s cooldown.
 */
public record CooldownRule(int blocks, Duration within, Duration cooldown) {

    public static final CooldownRule DEFAULT = new CooldownRule(3, Duration.ofSeconds(60), Duration.ofSeconds(30));

    public CooldownRule {
        Objects.requireNonNull(within);
        Objects.requireNonNull(cooldown);
        if (blocks < 1 || within.toMillis() < 1 || cooldown.toMillis() < 1) {
            throw new IllegalArgumentException("a cooldown needs at least one block, a window and a duration");
        }
    }
}
