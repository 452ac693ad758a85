import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Benchmark upstream: a fast OpenAI-compatible chat-completions server on loopback. JSON for non-streaming
 * requests, a short SSE stream (role, 8 text chunks, finish, usage, [DONE]) for streaming ones. No delays:
 * whatever latency a measurement shows beyond this server's is added by the client path being measured.
 * Usage: java MockUpstream.java PORT
 */
public class MockUpstream {
    private static final byte[] JSON = ("{\"id\":\"chatcmpl-mock\",\"object\":\"chat.completion\",\"created\":1,"
            + "\"model\":\"mock\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
            + "\"one two three four five six seven eight\",\"refusal\":null},\"logprobs\":null,"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,"
            + "\"total_tokens\":20}}").getBytes(StandardCharsets.UTF_8);
    private static final byte[] STREAM;

    static {
        StringBuilder sse = new StringBuilder();
        sse.append("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
        for (String w : new String[] {"one", " two", " three", " four", " five", " six", " seven", " eight"}) {
            sse.append("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"").append(w)
                    .append("\"},\"finish_reason\":null}]}\n\n");
        }
        sse.append("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
        sse.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,\"total_tokens\":20}}\n\n");
        sse.append("data: [DONE]\n\n");
        STREAM = sse.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 1024);
        server.createContext("/v1/chat/completions", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            boolean stream = body.replace(" ", "").contains("\"stream\":true");
            byte[] answer = stream ? STREAM : JSON;
            exchange.getResponseHeaders().set("Content-Type", stream ? "text/event-stream" : "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(64));
        server.start();
        System.out.println("mock upstream on 127.0.0.1:" + args[0]);
    }
}
