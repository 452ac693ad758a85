package dev.tollgate.application.port.in;

/**
 * A use case refused its command for a reason the caller can act on. {@link #code()} is stable; only the
 * inbound adapters map it to a protocol status and envelope.
 */
public abstract class UseCaseException extends RuntimeException {

    protected UseCaseException(String message) {
        super(message);
    }

    /** Stable, machine-readable reason, e.g. {@code api_key_not_found}. */
    public abstract String code();
}
