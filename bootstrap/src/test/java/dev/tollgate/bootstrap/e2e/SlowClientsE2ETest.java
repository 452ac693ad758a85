package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * G15: a client that sends its request head or body too slowly gets a 408 and loses the connection (slowloris),
 * while a keep-alive connection may rest between requests as long as the idle timeout allows.
 */
@MicronautTest(transactional = false)
class SlowClientsE2ETest extends GatewayE2ETest {

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        properties.put("tollgate.http.request-head-timeout", "1s");
        properties.put("tollgate.http.request-body-timeout", "2s");
        return properties;
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.getPort());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }

    @Test
    void aHeadThatDoesNotArriveInTimeIsCut() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            long start = System.nanoTime();
            out.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: a".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = readAll(socket.getInputStream()); // ends when the server closes
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
            assertTrue(answer.contains("\"code\":\"request_timeout\""), answer);
            assertTrue(answer.matches("(?s).*\r\nx-request-id: req_[0-9a-f]{24}\r\n.*"), answer);
            assertTrue(millis >= 900 && millis < 5_000, "cut after " + millis + " ms");
        }
    }

    @Test
    void aBodyThatDoesNotArriveInTimeIsCut() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            long start = System.nanoTime();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"model\":").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = readAll(socket.getInputStream());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(answer.contains("408"), answer);
            assertTrue(millis >= 1_900 && millis < 6_000, "cut after " + millis + " ms");
        }
    }

    @Test
    void aKeepAliveConnectionMayRestBetweenRequests() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] request = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 2; i++) {
                out.write(request);
                out.flush();
                byte[] buffer = new byte[4096];
                int read = in.read(buffer);
                String answer = new String(buffer, 0, read, StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
                Thread.sleep(2_500); // longer than both deadlines: resting is not sending slowly
            }
        }
    }
}
