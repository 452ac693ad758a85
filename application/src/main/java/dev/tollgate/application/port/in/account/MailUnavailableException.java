package dev.tollgate.application.port.in.account;

import dev.tollgate.application.port.in.UseCaseException;

/** The gateway could not hand a mail to its mail server; trying again later may work. */
public final class MailUnavailableException extends UseCaseException {

    public MailUnavailableException() {
        super("the e-mail could not be sent just now; try again in a few minutes");
    }

    @Override
    public String code() {
        return "mail_unavailable";
    }
}
