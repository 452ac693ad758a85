package dev.tollgate.application.port.in.account;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.account.Email;

/** No account has the given e-mail address. */
public final class AccountNotFoundException extends UseCaseException {

    public AccountNotFoundException(Email email) {
        super("no account with e-mail " + email);
    }

    public AccountNotFoundException() {
        super("no such account");
    }

    @Override
    public String code() {
        return "account_not_found";
    }
}
