package dev.tollgate.adapter.in.http.common;

/**
 * The request's shape is wrong (malformed JSON, a wrong type, an unknown field): a 400 naming the field — or a 415
 * for a body not declared as JSON ({@link #unsupportedMediaType}).
 */
public final class InvalidRequestException extends RuntimeException {

    private final String param;
    private final int status;

    public InvalidRequestException(String param, String message) {
        this(param, message, 400);
    }

    private InvalidRequestException(String param, String message, int status) {
        super(message);
        this.param = param;
        this.status = status;
    }

    /** §4: a body must be declared {@code Content-Type: application/json}. */
    public static InvalidRequestException unsupportedMediaType(String message) {
        return new InvalidRequestException(null, message, 415);
    }

    /** The offending request field or query parameter, or {@code null}. */
    public String param() {
        return param;
    }

    /** 400, or 415 for a body of another declared type. */
    public int status() {
        return status;
    }
}
