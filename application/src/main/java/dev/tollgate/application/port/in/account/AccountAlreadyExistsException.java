package dev.tollgate.application.port.in.account;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.account.Email;

/** An account with the given e-mail address exists already. */
public final class AccountAlreadyExistsException extends UseCaseException {

    public AccountAlreadyExistsException(Email email) {
        super("an account with e-mail " + email + " exists already");
    }

    @Override
    public String code() {
        return "account_exists";
    }
}
