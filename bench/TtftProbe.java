import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Benchmark client: time to first token of streaming chat completions, sequentially (concurrency 1). Measures
 * from sending the request to reading the first SSE line with text content, over a fresh request each time.
 * Usage: java TtftProbe.java URL KEY|- MODEL REQUESTS  → prints "p50_ms p99_ms"
 */
public class TtftProbe {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String key = args[1];
        String body = "{\"model\":\"" + args[2] + "\",\"stream\":true,\"max_tokens\":16,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Say eight words\"}]}";
        int n = Integer.parseInt(args[3]);
        long[] samples = new long[n];
        for (int i = -20; i < n; i++) { // 20 warm-up requests are not counted
            long start = System.nanoTime();
            HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            if (!key.equals("-")) {
                c.setRequestProperty("Authorization", "Bearer " + key);
            }
            c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
            long first = -1;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (first < 0 && line.startsWith("data:") && line.contains("\"content\":\"") && !line.contains("\"content\":\"\"")) {
                        first = System.nanoTime() - start;
                    }
                }
            }
            if (i >= 0) {
                samples[i] = first;
            }
        }
        Arrays.sort(samples);
        System.out.printf("%.2f %.2f%n", samples[n / 2] / 1e6, samples[(int) Math.ceil(n * 0.99) - 1] / 1e6);
    }
}
