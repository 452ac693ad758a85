package dev.tollgate.adapter.out.upstream.mail;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.port.out.MailOutbox;
import dev.tollgate.application.port.out.Mailer;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mail adapter for the embedded default (no SMTP host configured): nothing leaves the machine. Each mail is
 * written to the log (recipient, subject and its link — the one secret it may carry) and kept in memory for the
 * operator's {@code /outbox} page, the newest {@code capacity} of them, until the process ends.
 */
public final class OutboxMailer implements Mailer, MailOutbox {

    private static final Logger LOG = LoggerFactory.getLogger(OutboxMailer.class);

    private final Clock clock;
    private final int capacity;
    private final Deque<SentMail> kept = new ArrayDeque<>();

    public OutboxMailer(Clock clock, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the outbox keeps at least one mail");
        }
        this.clock = clock;
        this.capacity = capacity;
    }

    @Override
    public void send(MailMessage message) {
        synchronized (kept) {
            kept.addFirst(new SentMail(clock.instant(), message));
            while (kept.size() > capacity) {
                kept.removeLast();
            }
        }
        LOG.info("Outbox (no SMTP configured): mail to {} \"{}\"{}", message.to(), message.subject(),
                message.link() == null ? "" : " with link " + message.link());
    }

    @Override
    public List<SentMail> recent() {
        synchronized (kept) {
            return List.copyOf(kept);
        }
    }
}
