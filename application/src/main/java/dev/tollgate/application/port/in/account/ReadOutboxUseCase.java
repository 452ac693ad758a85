package dev.tollgate.application.port.in.account;

import dev.tollgate.application.port.out.MailOutbox;
import java.util.List;

/** Use case: the operator reads the local outbox (only when no SMTP server is configured). */
public interface ReadOutboxUseCase {

    /** The kept mails, newest first. */
    List<MailOutbox.SentMail> recent();
}
