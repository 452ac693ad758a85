package dev.tollgate.application.port.in.completions;

/** A completion under way. */
public interface RunningCompletion {

    /**
     * The client went away: cancel the upstream call and bill exactly what was delivered. Idempotent; a no-op
     * after the completion ended.
     */
    void cancel();
}
