package dev.tollgate.application.port.in.session;

import dev.tollgate.application.port.in.UseCaseException;

/**
 * A sign-in failed. One message for an unknown address, a wrong password and an account without a password, so
 * that the answer never tells which addresses have accounts.
 */
public final class InvalidCredentialsException extends UseCaseException {

    public InvalidCredentialsException() {
        super("The e-mail address or password is not correct.");
    }

    @Override
    public String code() {
        return "invalid_credentials";
    }
}
