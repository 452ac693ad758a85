package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        properties.put("tollgate.http.max-connections", "40");
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

    /** What the gateway answers to a POST to {@code path} whose body stops after 9 of its 100 bytes. */
    private String answerToAnIncompleteBody(String path) throws IOException {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"model\":").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readAll(socket.getInputStream()); // ends when the server closes
        }
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
        long start = System.nanoTime();
        String answer = answerToAnIncompleteBody("/v1/chat/completions");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        assertTrue(answer.contains("\"code\":\"request_timeout\""), answer);
        assertTrue(millis >= 1_900 && millis < 6_000, "cut after " + millis + " ms");
    }

    @Test
    void aBodyOfTheControlPlaneThatDoesNotArriveInTimeGetsItsEnvelope() throws Exception {
        String answer = answerToAnIncompleteBody("/api/v1/keys");
        assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        assertTrue(answer.contains("\"success\":false"), answer);
        assertTrue(answer.contains("\"statusCode\":408"), answer);
        assertTrue(answer.matches("(?s).*\"requestId\":\"req_[0-9a-f]{24}\".*"), answer);
    }

    /** A head cut short after its request line: the line says which surface's envelope the 408 is in. */
    @Test
    void aHeadOfTheControlPlaneThatDoesNotArriveInTimeGetsItsEnvelope() throws Exception {
        for (String line : java.util.List.of("GET /api/v1/keys?offset=0 HTTP/1.1", "\r\nGET //api/v1/keys HTTP/1.1",
                "GET http://x/api/v1/keys HTTP/1.1")) {
            try (Socket socket = connect()) {
                OutputStream out = socket.getOutputStream();
                out.write((line + "\r\nHost: x\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String answer = readAll(socket.getInputStream());
                assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
                assertTrue(answer.contains("\"success\":false"), line + ": " + answer);
                assertTrue(answer.contains("\"statusCode\":408"), answer);
            }
        }
    }

    /**
     * A body over the size limit is answered 413 at once, and the connection closes: it used to stay open, reading
     * and discarding whatever the client sent, and the body's deadline then answered the same request with a 408.
     */
    @Test
    void aBodyOverTheSizeLimitIsAnsweredOnceAndTheConnectionCloses() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            long start = System.nanoTime();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 2097152\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) ' ');
            try {
                for (int i = 0; i < 24; i++) { // 1.5 MiB of the 2 MiB announced, then nothing more
                    out.write(chunk);
                }
                out.flush();
            } catch (IOException closedMeanwhile) {
                // the server answered and closed while the body was still being sent: what is asked for
            }
            String answer = readAll(socket.getInputStream());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("\r\nconnection: close\r\n"),
                    "a keep-alive client must not send its next request into it: " + answer);
            assertEquals(1, answer.split("HTTP/1.1 ", -1).length - 1, "one answer, no 408 after it: " + answer);
            assertTrue(millis < 1_900, "closed without waiting for the body's deadline, took " + millis + " ms");
        }
    }

    /** One byte from the gateway on {@code socket} within 300 ms: its first answer byte, -1 closed, -2 nothing yet. */
    private static int firstByte(Socket socket) throws IOException {
        socket.setSoTimeout(300);
        try {
            return socket.getInputStream().read();
        } catch (java.net.SocketTimeoutException nothingYet) {
            return -2;
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }

    /**
     * G15: a full server makes room by closing connections that hold no request, the longest idle first, so one
     * client that opens as many connections as the cap allows and sends nothing locks nobody out (an audit did it
     * from one address: every other client got 503 for the 5 minutes of the idle timeout).
     */
    @Test
    void connectionsThatSendNothingMakeRoomForNewOnes() throws Exception {
        java.util.List<Socket> silent = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 45; i++) {
                silent.add(connect());
                Thread.sleep(5); // an order of age among them
            }
            Thread.sleep(1_200); // idle for over a second: given up for a newcomer (one just opened is not)
            try (Socket socket = connect()) {
                socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                byte[] buffer = new byte[4096];
                int read = socket.getInputStream().read(buffer);
                assertTrue(new String(buffer, 0, read, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200"),
                        "a new client is served while 45 silent connections were opened against a cap of 40");
            }
            assertEquals(-1, firstByte(silent.get(0)), "the oldest silent connection was closed, without an answer");
        } finally {
            for (Socket socket : silent) {
                socket.close();
            }
        }
    }

    /** G15: when every connection holds a request, one over the cap is answered 503 with Retry-After and closed. */
    @Test
    void aConnectionOverACapOfBusyConnectionsIsAnswered503AndClosed() throws Exception {
        java.util.List<Socket> busy = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                Socket socket = connect();
                busy.add(socket);
                // a request whose body is on its way (within the 2 s body deadline): a connection at work
                socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{").getBytes(
                        StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
            String refused = null;
            for (Socket socket : busy.subList(40, 50)) {
                int first = firstByte(socket);
                if (first >= 0) {
                    byte[] rest = new byte[4096];
                    int read = socket.getInputStream().read(rest);
                    refused = (char) first + new String(rest, 0, Math.max(0, read), StandardCharsets.US_ASCII);
                    break;
                }
            }
            assertTrue(refused != null, "no connection was refused over a cap of 40 busy ones");
            assertTrue(refused.startsWith("HTTP/1.1 503"), refused);
            assertTrue(refused.contains("\r\nRetry-After: 1\r\n"), refused);
            assertTrue(refused.contains("\"code\":\"service_unavailable\""), refused);
        } finally {
            for (Socket socket : busy) {
                socket.close();
            }
        }
        Thread.sleep(300); // the server sees the closes
        try (Socket socket = connect()) {
            socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] buffer = new byte[4096];
            int read = socket.getInputStream().read(buffer);
            assertTrue(new String(buffer, 0, read, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200"),
                    "served again once connections closed");
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
