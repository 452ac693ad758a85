package dev.tollgate.application.port.out;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** Out port: the mails kept locally when no SMTP server is configured (the embedded default), newest first. */
public interface MailOutbox {

    List<SentMail> recent();

    /** A mail and when it was "sent" into the outbox. */
    record SentMail(Instant sentAt, MailMessage message) {
        public SentMail {
            Objects.requireNonNull(sentAt);
            Objects.requireNonNull(message);
        }
    }
}
