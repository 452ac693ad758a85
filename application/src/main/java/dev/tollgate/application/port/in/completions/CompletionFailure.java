package dev.tollgate.application.port.in.completions;

/**
 * Why a started completion failed: an HTTP status and a §7.2 code for a failure before any output, or a terminal
 * stream error (§6.7) after output began. {@code retryAfterSeconds} is 0 when no wait applies; {@code param} names
 * the request field at fault when there is one (else {@code null}).
 */
public record CompletionFailure(int status, String type, String code, String message, long retryAfterSeconds,
        boolean afterOutput, String param) {

    public CompletionFailure(int status, String type, String code, String message, long retryAfterSeconds,
            boolean afterOutput) {
        this(status, type, code, message, retryAfterSeconds, afterOutput, null);
    }
}
