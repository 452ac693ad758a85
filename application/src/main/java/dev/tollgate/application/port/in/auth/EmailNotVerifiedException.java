package dev.tollgate.application.port.in.auth;

import dev.tollgate.application.port.in.UseCaseException;

/** §5.5: the account has no verified e-mail. */
public final class EmailNotVerifiedException extends UseCaseException {

    public EmailNotVerifiedException() {
        super("Please verify your email address to access this feature");
    }

    @Override
    public String code() {
        return "email_not_verified";
    }
}
