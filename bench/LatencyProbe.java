import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Benchmark client: sequential chat completions (concurrency 1) over one keep-alive HTTP/1.1 connection, timed
 * from writing the request — in mode {@code ttft} (streams) to reading the first SSE event with text content, in
 * mode {@code json} (non-streaming) to reading the whole answer. It speaks HTTP on a plain socket (Content-Length
 * or chunked answers alike) so that the client adds the same few microseconds to every server it measures: a JDK
 * client decodes a chunked answer (the gateway's) with more work than a fixed-length one (the mock's), and wrk's
 * own scheduling adds up to a millisecond at the 99th percentile (measured against the mock: p99 0.15 ms with this
 * client, 0.8–1.6 ms with wrk), either of which would be counted as the gateway's.
 * Usage: java LatencyProbe.java ttft|json URL KEY|- MODEL REQUESTS → prints "p50_ms p99_ms" (after PROBE_WARMUP
 * uncounted requests, default 10,000: with 2,000 the probe's own JIT compiler was still at work during the counted
 * ones — a CPU profile of the slowest 1 % found its C2 thread among the busiest there — and on two cores that
 * compiler takes the CPU the measured server needs). PROBE_DUMP=FILE also writes each counted request to FILE as
 * "start_us latency_us" (start counted from the first), to look for a period in the slow ones.
 */
public class LatencyProbe {

    private static final byte[] CONTENT = "\"content\":\"".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        boolean ttft = switch (args[0]) {
            case "ttft" -> true;
            case "json" -> false;
            default -> throw new IllegalArgumentException("mode: ttft or json");
        };
        URI url = URI.create(args[1]);
        String key = args[2];
        byte[] body = ("{\"model\":\"" + args[3] + "\",\"stream\":" + ttft + ",\"max_tokens\":16,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Say eight words\"}]}").getBytes(StandardCharsets.UTF_8);
        String head = "POST " + url.getPath() + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                + (key.equals("-") ? "" : "Authorization: Bearer " + key + "\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n";
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(head.getBytes(StandardCharsets.US_ASCII));
        request.write(body);
        byte[] bytes = request.toByteArray();
        int n = Integer.parseInt(args[4]);
        long[] samples = new long[n];
        long[] starts = new long[n];
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            int warmup = Integer.parseInt(System.getenv().getOrDefault("PROBE_WARMUP", "10000"));
            for (int i = -warmup; i < n; i++) {
                long start = System.nanoTime();
                out.write(bytes);
                out.flush();
                long first = readResponse(in, start);
                long whole = System.nanoTime() - start;
                if (ttft && first < 0) {
                    throw new IllegalStateException("no text content in the answer");
                }
                if (i >= 0) {
                    samples[i] = ttft ? first : whole;
                    starts[i] = start;
                }
            }
        }
        String dump = System.getenv("PROBE_DUMP");
        if (dump != null) {
            try (java.io.PrintWriter out = new java.io.PrintWriter(dump, StandardCharsets.US_ASCII)) {
                for (int i = 0; i < n; i++) {
                    out.println((starts[i] - starts[0]) / 1000 + " " + samples[i] / 1000);
                }
            }
        }
        Arrays.sort(samples);
        System.out.printf("%.2f %.2f%n", samples[n / 2] / 1e6, samples[(int) Math.ceil(n * 0.99) - 1] / 1e6);
    }

    /** Reads one whole response; returns the nanoseconds from {@code start} to the first non-empty text content. */
    private static long readResponse(InputStream in, long start) throws Exception {
        byte[] buffer = new byte[65536];
        int filled = 0;
        int headerEnd = -1;
        long first = -1;
        while (true) {
            int read = in.read(buffer, filled, buffer.length - filled);
            if (read < 0) {
                throw new IllegalStateException("connection closed mid-response");
            }
            filled += read;
            if (headerEnd < 0) {
                headerEnd = indexOf(buffer, 0, filled, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                if (headerEnd < 0) {
                    continue;
                }
                headerEnd += 4;
                String headers = new String(buffer, 0, headerEnd, StandardCharsets.US_ASCII).toLowerCase();
                if (!headers.startsWith("http/1.1 200")) {
                    throw new IllegalStateException("answer: " + headers.lines().findFirst().orElse(""));
                }
            }
            if (first < 0 && hasText(buffer, headerEnd, filled)) {
                first = System.nanoTime() - start;
            }
            String headers = new String(buffer, 0, headerEnd, StandardCharsets.US_ASCII).toLowerCase();
            if (headers.contains("transfer-encoding: chunked")) {
                if (indexOf(buffer, headerEnd, filled, "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)) >= 0
                        || (filled - headerEnd >= 5 && indexOf(buffer, headerEnd, headerEnd + 5,
                                "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)) == headerEnd)) {
                    return first;
                }
            } else {
                int at = headers.indexOf("content-length:");
                long length = Long.parseLong(headers.substring(at + 15, headers.indexOf('\r', at)).trim());
                if (filled - headerEnd >= length) {
                    return first;
                }
            }
            if (filled == buffer.length) {
                throw new IllegalStateException("answer longer than the probe's buffer");
            }
        }
    }

    /** Whether the body holds {@code "content":"} followed by something other than the closing quote. */
    private static boolean hasText(byte[] buffer, int from, int to) {
        int at = from;
        while ((at = indexOf(buffer, at, to, CONTENT)) >= 0) {
            int next = at + CONTENT.length;
            if (next < to && buffer[next] != '"') {
                return true;
            }
            at = next;
        }
        return false;
    }

    private static int indexOf(byte[] buffer, int from, int to, byte[] pattern) {
        outer:
        for (int i = from; i + pattern.length <= to; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (buffer[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
