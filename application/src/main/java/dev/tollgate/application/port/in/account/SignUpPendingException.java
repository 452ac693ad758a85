package dev.tollgate.application.port.in.account;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.account.Email;

/** The operator asked to confirm an address whose dashboard sign-up waits for its owner's link. */
public final class SignUpPendingException extends UseCaseException {

    public SignUpPendingException(Email email) {
        super(email + " has a dashboard sign-up waiting for the link mailed to it: confirming the address here would "
                + "hand the account to whoever chose that sign-up's password. Ask the owner to follow the link (a new "
                + "sign-up mails a new one), or pass --discard-signup to confirm it without that password (the "
                + "account then has none, like one made with this CLI)");
    }

    @Override
    public String code() {
        return "sign_up_pending";
    }
}
