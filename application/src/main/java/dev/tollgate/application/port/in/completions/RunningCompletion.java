package dev.tollgate.application.port.in.completions;

/** A completion under way. */
public interface RunningCompletion {

    /**
     * The client went away: cancel the upstream call and bill exactly what was delivered. Idempotent; a no-op
     * after the completion ended.
     */
    void cancel();

    /**
     * The client reads slower than the answer arrives: stop taking more of it from the provider for now (the
     * provider's own flow control holds the rest back), so what the client has not read does not pile up in memory.
     * While held, the provider's silence is not its fault (no idle timeout). Lock-free and non-blocking: callable
     * from any thread, with any lock held. A no-op once the completion ended.
     */
    default void pause() {
    }

    /** Take the answer again after {@link #pause()}; the same rules. */
    default void resume() {
    }
}
