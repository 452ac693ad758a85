package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.port.out.Mailer;
import java.util.ArrayList;
import java.util.List;

/** Test fake of {@link Mailer}: keeps what was sent; can be told to fail. */
public final class RecordingMailer implements Mailer {

    private final List<MailMessage> sent = new ArrayList<>();
    private boolean failing;

    @Override
    public synchronized void send(MailMessage message) {
        if (failing) {
            throw new Mailer.Unavailable("test mailer is failing", null);
        }
        sent.add(message);
    }

    public synchronized List<MailMessage> sent() {
        return List.copyOf(sent);
    }

    public synchronized MailMessage last() {
        return sent.get(sent.size() - 1);
    }

    public synchronized void failing(boolean value) {
        failing = value;
    }
}
