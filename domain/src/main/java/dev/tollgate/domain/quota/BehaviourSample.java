package dev.tollgate.domain.quota;

import java.util.Objects;

/** What the behavioural cooldown looks at in one request: its scope (key, IP, model) and its prompt's shape. */
public record BehaviourSample(Bucket scope, long fingerprint, boolean minimal, BehaviourRule rule) {

    public BehaviourSample {
        Objects.requireNonNull(scope);
        Objects.requireNonNull(rule);
    }
}
