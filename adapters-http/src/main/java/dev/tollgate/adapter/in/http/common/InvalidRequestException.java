package dev.tollgate.adapter.in.http.common;

/** The request's shape is wrong (malformed JSON, a wrong type, an unknown field): a 400 naming the field. */
public final class InvalidRequestException extends RuntimeException {

    private final String param;

    public InvalidRequestException(String param, String message) {
        super(message);
        this.param = param;
    }

    /** The offending request field or query parameter, or {@code null}. */
    public String param() {
        return param;
    }
}
