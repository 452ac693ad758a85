package dev.tollgate.application.port.out;

/** Out port: sends mail (SMTP, or the local outbox when no SMTP server is configured). */
public interface Mailer {

    /** @throws Unavailable the mail could not be handed to the mail server */
    void send(MailMessage message);

    /** The mail server refused the message or could not be reached. */
    final class Unavailable extends RuntimeException {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
