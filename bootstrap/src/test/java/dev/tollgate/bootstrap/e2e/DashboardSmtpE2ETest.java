package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** With an SMTP host configured, the dashboard's mails go to it (links from the public URL) and /outbox is gone. */
@MicronautTest(transactional = false)
class DashboardSmtpE2ETest extends GatewayE2ETest {

    private static final ServerSocket SMTP;
    private static final List<String> RECEIVED = new ArrayList<>();

    static {
        try {
            SMTP = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread thread = new Thread(DashboardSmtpE2ETest::serve, "e2e-smtp");
        thread.setDaemon(true);
        thread.start();
    }

    /** A loopback SMTP server: accepts every mail and keeps its lines. */
    private static void serve() {
        while (!SMTP.isClosed()) {
            try (Socket client = SMTP.accept();
                    BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
                            StandardCharsets.UTF_8));
                    OutputStream out = client.getOutputStream()) {
                reply(out, "220 e2e ESMTP");
                boolean data = false;
                String line;
                while ((line = in.readLine()) != null) {
                    if (data) {
                        synchronized (RECEIVED) {
                            RECEIVED.add(line);
                        }
                        if (line.equals(".")) {
                            data = false;
                            reply(out, "250 queued");
                        }
                        continue;
                    }
                    String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line;
                    if (verb.equals("QUIT")) {
                        reply(out, "221 bye");
                        break;
                    }
                    reply(out, switch (verb) {
                        case "EHLO" -> "250 e2e";
                        case "DATA" -> "354 go on";
                        default -> "250 ok";
                    });
                    data = verb.equals("DATA");
                }
            } catch (IOException e) {
                // closed at the end of the class
            }
        }
    }

    private static void reply(OutputStream out, String text) throws IOException {
        out.write((text + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @AfterAll
    static void stopSmtp() throws IOException {
        SMTP.close();
    }

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        properties.put("tollgate.smtp.host", "127.0.0.1");
        properties.put("tollgate.smtp.port", Integer.toString(SMTP.getLocalPort()));
        properties.put("tollgate.smtp.tls", "none");
        properties.put("tollgate.smtp.from", "Tollgate <noreply@gw.example.test>");
        properties.put("tollgate.dashboard.public-url", "https://gw.example.test");
        properties.put("tollgate.dashboard.secret", "an e2e dashboard secret of 32+ characters");
        return properties;
    }

    @Test
    void signUpMailsTheLinkThroughSmtpAndThereIsNoOutbox() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(URI.create(server.getURL() + "/signup")).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([0-9a-f]{64})\"").matcher(form.body());
        assertTrue(csrf.find());
        String cookie = form.headers().firstValue("set-cookie").orElseThrow().split(";", 2)[0];
        String email = "smtp-" + UUID.randomUUID() + "@example.test";
        String body = "csrf=" + csrf.group(1) + "&email=" + URLEncoder.encode(email, StandardCharsets.UTF_8)
                + "&password=correct+horse+battery&password_repeat=correct+horse+battery";
        HttpResponse<String> sent = http.send(HttpRequest.newBuilder(URI.create(server.getURL() + "/signup"))
                .header("Cookie", cookie).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, sent.statusCode(), sent.body());

        String mail;
        synchronized (RECEIVED) {
            mail = String.join("\n", RECEIVED);
        }
        assertTrue(mail.contains("To: " + email), mail);
        assertTrue(mail.contains("https://gw.example.test/verify?token="), "links start with the public URL: " + mail);
        assertEquals(404, get("/outbox", null).status(), "no outbox when SMTP is configured");
    }
}
