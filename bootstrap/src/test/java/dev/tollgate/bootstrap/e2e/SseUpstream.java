package dev.tollgate.bootstrap.e2e;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * Test fixture: an OpenAI-compatible upstream on loopback that answers every chat completion with the same SSE
 * stream (the given {@code data:} payloads) and hands each request body it received to {@code received}.
 */
final class SseUpstream implements AutoCloseable {

    private final HttpServer server;

    SseUpstream(List<String> data, Consumer<String> received) {
        byte[] bytes = data.stream().map(d -> "data: " + d + "\n\n").reduce("", String::concat)
                .getBytes(StandardCharsets.UTF_8);
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/v1/chat/completions", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                received.accept(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    /** The base URL of its OpenAI-compatible API, for a catalog's {@code base-url}. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
