package dev.tollgate.domain.quota;

/** The counted state of one bucket in a store that keeps it in memory (the in-process store, tests). */
public sealed interface QuotaState
        permits SlidingWindowLog, DistinctLog, SlotGauge, TwoWindowCounter, CooldownState, BehaviourState {

    /**
     * How long after its last change the state can be forgotten because nothing in it counts any more;
     * {@link Long#MAX_VALUE} while it must be kept (slots in use).
     */
    long idleTtlMillis();
}
