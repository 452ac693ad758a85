package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.Email;
import java.util.Objects;

/**
 * A plain-text mail the gateway sends: recipient, subject, body, and the one link it asks the reader to open
 * ({@code null} when it has none), so that the outbox can show it as a link.
 */
public record MailMessage(Email to, String subject, String text, String link) {

    public MailMessage {
        Objects.requireNonNull(to);
        Objects.requireNonNull(subject);
        Objects.requireNonNull(text);
        if (subject.indexOf('\n') >= 0 || subject.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a subject is one line");
        }
    }
}
