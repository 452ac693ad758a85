package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * §8.1 behavioural cooldown: within {@code within}, {@code identical} near-identical requests (same
 * {@link PromptFingerprint}) or {@code minimal} minimal requests against the same key, source IP and model put
 * that triple into a cooldown of {@code cooldown}, even within the published limits.
 */
public record BehaviourRule(int identical, int minimal, Duration within, Duration cooldown) {

    public static final BehaviourRule DEFAULT = new BehaviourRule(50, 100, Duration.ofSeconds(60),
            Duration.ofSeconds(60));

    public BehaviourRule {
        Objects.requireNonNull(within);
        Objects.requireNonNull(cooldown);
        if (identical < 2 || minimal < 2 || within.toMillis() < 1 || cooldown.toMillis() < 1) {
            throw new IllegalArgumentException("behavioural thresholds must be at least 2, windows positive");
        }
    }
}
