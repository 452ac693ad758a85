package dev.tollgate.adapter.out.upstream.mail;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.port.out.Mailer;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.Date;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mail adapter: {@link Mailer} over SMTP with Angus Mail (Jakarta Mail). One connection per mail (the dashboard
 * sends few), bounded connect/read/write timeouts, and a TLS mode: {@code starttls} (upgrade required, port 587),
 * {@code tls} (implicit TLS, port 465) or {@code none} (a local relay only). Server certificates and host names are
 * checked. Only recipient and subject are logged, never the body or the credentials.
 */
public final class SmtpMailer implements Mailer {

    private static final Logger LOG = LoggerFactory.getLogger(SmtpMailer.class);

    private final Session session;
    private final InternetAddress from;
    private final String username;
    private final String password;
    private final String endpoint;

    public SmtpMailer(Settings settings) {
        Objects.requireNonNull(settings);
        Properties props = new Properties();
        String protocol = settings.tls() == Tls.TLS ? "smtps" : "smtp";
        props.put("mail.transport.protocol", protocol);
        String p = "mail." + protocol + ".";
        props.put(p + "host", settings.host());
        props.put(p + "port", Integer.toString(settings.port()));
        props.put(p + "auth", Boolean.toString(settings.username() != null && !settings.username().isEmpty()));
        props.put(p + "connectiontimeout", Long.toString(settings.timeout().toMillis()));
        props.put(p + "timeout", Long.toString(settings.timeout().toMillis()));
        props.put(p + "writetimeout", Long.toString(settings.timeout().toMillis()));
        if (settings.tls() == Tls.STARTTLS) {
            props.put(p + "starttls.enable", "true");
            props.put(p + "starttls.required", "true");
        }
        if (settings.tls() != Tls.NONE) {
            props.put(p + "ssl.checkserveridentity", "true");
        }
        this.session = Session.getInstance(props);
        try {
            this.from = new InternetAddress(settings.from(), true);
        } catch (MessagingException e) {
            // Its reason in this sentence, not as a cause: a start-up failure line shows the deepest cause alone,
            // which named no setting ("Missing final '@domain'": an audit, 2026-11-29).
            throw new IllegalArgumentException("TOLLGATE_SMTP_FROM (tollgate.smtp.from) must be an e-mail address or "
                    + "'Name <address>'; it was " + settings.from() + " (" + e.getMessage() + ")");
        }
        this.username = settings.username();
        this.password = settings.password();
        this.endpoint = settings.host() + ":" + settings.port() + " (" + settings.tls().name().toLowerCase(Locale.ROOT)
                + ")";
    }

    @Override
    public void send(MailMessage message) {
        try {
            MimeMessage mime = new MimeMessage(session);
            mime.setFrom(from);
            mime.setRecipient(Message.RecipientType.TO, new InternetAddress(message.to().value(), true));
            mime.setSubject(message.subject(), "UTF-8");
            mime.setText(message.text(), "UTF-8");
            mime.setSentDate(new Date());
            if (username != null && !username.isEmpty()) {
                Transport.send(mime, username, password);
            } else {
                Transport.send(mime);
            }
            LOG.info("Mail sent to {} \"{}\" via {}", message.to(), message.subject(), endpoint);
        } catch (MessagingException e) {
            LOG.warn("Mail to {} \"{}\" could not be sent via {}: {}", message.to(), message.subject(), endpoint,
                    e.getMessage());
            throw new Mailer.Unavailable("SMTP server " + endpoint + " did not take the mail", e);
        }
    }

    public String endpoint() {
        return endpoint;
    }

    /** How to reach the SMTP server. */
    public enum Tls {
        STARTTLS, TLS, NONE;

        public static Tls parse(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tollgate.smtp.tls must be starttls, tls or none, was " + value);
            }
        }
    }

    /** SMTP settings; {@code username} empty means no authentication. */
    public record Settings(String host, int port, String username, String password, String from, Tls tls,
            Duration timeout) {
        public Settings {
            Objects.requireNonNull(host);
            Objects.requireNonNull(from);
            Objects.requireNonNull(tls);
            Objects.requireNonNull(timeout);
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("tollgate.smtp.port must be 1..65535");
            }
        }

        @Override
        public String toString() {
            return "Settings[" + host + ":" + port + ", user " + username + ", password ***, from " + from + ", "
                    + tls + "]";
        }
    }
}
