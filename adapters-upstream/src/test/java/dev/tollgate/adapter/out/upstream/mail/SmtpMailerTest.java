package dev.tollgate.adapter.out.upstream.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.port.out.Mailer;
import dev.tollgate.domain.account.Email;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The SMTP adapter against a minimal SMTP server on loopback that records the conversation. */
class SmtpMailerTest {

    /** Just enough of RFC 5321 (and AUTH PLAIN) to receive one mail per connection. */
    private static final class TinySmtpServer implements AutoCloseable {
        final ServerSocket socket;
        final List<String> lines = new ArrayList<>();
        final Thread thread;

        TinySmtpServer() throws IOException {
            socket = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
            thread = new Thread(this::serve, "tiny-smtp");
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        private void serve() {
            try (Socket client = socket.accept();
                    BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
                            StandardCharsets.UTF_8));
                    OutputStream out = client.getOutputStream()) {
                write(out, "220 tiny ESMTP");
                boolean data = false;
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                    if (data) {
                        if (line.equals(".")) {
                            data = false;
                            write(out, "250 queued");
                        }
                        continue;
                    }
                    String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line.toUpperCase();
                    switch (verb) {
                        case "EHLO" -> write(out, "250-tiny\r\n250 AUTH PLAIN");
                        case "AUTH" -> write(out, "235 ok");
                        case "MAIL", "RCPT", "RSET", "NOOP" -> write(out, "250 ok");
                        case "DATA" -> {
                            data = true;
                            write(out, "354 go on");
                        }
                        case "QUIT" -> {
                            write(out, "221 bye");
                            return;
                        }
                        default -> write(out, "502 no");
                    }
                }
            } catch (IOException e) {
                // the test ends the server
            }
        }

        private static void write(OutputStream out, String reply) throws IOException {
            out.write((reply + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        String transcript() throws InterruptedException {
            thread.join(5_000);
            synchronized (lines) {
                return String.join("\n", lines);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private TinySmtpServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    private static MailMessage message() {
        return new MailMessage(new Email("alice@example.com"), "Confirm your e-mail address for Tollgate",
                "Hello,\n\nopen https://gw.example.com/verify?token=abc\n", "https://gw.example.com/verify?token=abc");
    }

    @Test
    void deliversTheMailWithAuthentication() throws Exception {
        server = new TinySmtpServer();
        SmtpMailer mailer = new SmtpMailer(new SmtpMailer.Settings("127.0.0.1", server.port(), "smtp-user",
                "smtp-pass", "Tollgate <noreply@gw.example.com>", SmtpMailer.Tls.NONE, Duration.ofSeconds(5)));
        mailer.send(message());
        String transcript = server.transcript();
        assertTrue(transcript.contains("MAIL FROM:<noreply@gw.example.com>"), transcript);
        assertTrue(transcript.contains("RCPT TO:<alice@example.com>"), transcript);
        assertTrue(transcript.contains("Subject: Confirm your e-mail address for Tollgate"), transcript);
        assertTrue(transcript.contains("https://gw.example.com/verify?token=abc"), transcript);
        String plain = Base64.getEncoder().encodeToString("\0smtp-user\0smtp-pass".getBytes(StandardCharsets.UTF_8));
        assertTrue(transcript.contains(plain), "AUTH PLAIN with the configured credentials: " + transcript);
    }

    @Test
    void anUnreachableServerIsUnavailableWithinTheTimeout() throws IOException {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        SmtpMailer mailer = new SmtpMailer(new SmtpMailer.Settings("127.0.0.1", closedPort, "", "",
                "noreply@gw.example.com", SmtpMailer.Tls.NONE, Duration.ofSeconds(2)));
        long start = System.nanoTime();
        assertThrows(Mailer.Unavailable.class, () -> mailer.send(message()));
        assertTrue(System.nanoTime() - start < 5_000_000_000L);
    }

    @Test
    void starttlsIsRequiredWhenAskedFor() throws Exception {
        server = new TinySmtpServer(); // offers no STARTTLS
        SmtpMailer mailer = new SmtpMailer(new SmtpMailer.Settings("127.0.0.1", server.port(), "", "",
                "noreply@gw.example.com", SmtpMailer.Tls.STARTTLS, Duration.ofSeconds(5)));
        assertThrows(Mailer.Unavailable.class, () -> mailer.send(message()),
                "a server without STARTTLS never receives the mail in clear");
        assertTrue(!server.transcript().contains("RCPT TO"), "nothing was sent");
    }

    @Test
    void settingsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> SmtpMailer.Tls.parse("ssl3"));
        assertEquals(SmtpMailer.Tls.STARTTLS, SmtpMailer.Tls.parse(" StartTLS "));
        IllegalArgumentException from = assertThrows(IllegalArgumentException.class, () -> new SmtpMailer(
                new SmtpMailer.Settings("h", 25, "", "", "notanemail", SmtpMailer.Tls.NONE, Duration.ofSeconds(1))));
        // The variable in the message itself, with no cause: a start-up failure line shows the deepest cause.
        assertTrue(from.getMessage().startsWith("TOLLGATE_SMTP_FROM (tollgate.smtp.from) must be an e-mail address"),
                from.getMessage());
        assertTrue(from.getMessage().contains("notanemail"), from.getMessage());
        assertEquals(null, from.getCause());
        assertTrue(new SmtpMailer.Settings("h", 25, "u", "secret-pw", "a@b.c", SmtpMailer.Tls.NONE,
                Duration.ofSeconds(1)).toString().contains("***"));
    }
}
