package dev.tollgate.application.port.in.session;

import dev.tollgate.application.port.in.UseCaseException;

/** A script's request with the session cookie but without the session's own form token (CSRF). */
public final class InvalidFormTokenException extends UseCaseException {

    public InvalidFormTokenException() {
        super("The request does not carry this session's form token: reload the page and try again");
    }

    @Override
    public String code() {
        return "invalid_form_token";
    }
}
