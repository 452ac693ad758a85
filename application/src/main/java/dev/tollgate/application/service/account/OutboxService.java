package dev.tollgate.application.service.account;

import dev.tollgate.application.port.in.account.ReadOutboxUseCase;
import dev.tollgate.application.port.out.MailOutbox;
import java.util.List;

/** Service: the local outbox, read by the operator when no SMTP server is configured. */
public final class OutboxService implements ReadOutboxUseCase {

    private final MailOutbox outbox;

    public OutboxService(MailOutbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public List<MailOutbox.SentMail> recent() {
        return outbox.recent();
    }
}
