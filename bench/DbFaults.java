import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reliability goal G9 for the database: one gateway whose PostgreSQL connection runs through a fault proxy in this
 * process, a counting OpenAI-compatible mock upstream, and CLIENTS clients sending completions without pause
 * through four phases — normal; 500 ms added to every answer from the database; every database connection reset
 * (reset_peer) and then the database unreachable for 30 s; the database back. Reports per phase the answers by
 * status, the slowest 503 and the slowest answer, the time from the database's return to the first 200, and
 * checks that every upstream call had a committed hold: after the run, the upstream calls equal the ledger rows
 * with a provider, and no hold is left open.
 *
 * <p>Run with the gateway's jar on the class path (for the PostgreSQL driver):
 * {@code java -cp bootstrap/target/tollgate.jar bench/DbFaults.java bootstrap/target/tollgate.jar [clients] [phase seconds]}
 * Needs the machine's PostgreSQL on 127.0.0.1:5432 (trust auth, user postgres); uses a fresh database
 * tollgate_dbfaults.
 */
public class DbFaults {

    private static final int PROXY_PORT = 25442;
    private static final int MOCK_PORT = 18521;
    private static final int GATEWAY_PORT = 18522;
    private static final String DATABASE = "tollgate_dbfaults";

    enum Mode { PASS, LATENCY, DOWN }

    private static volatile Mode mode = Mode.PASS;
    private static volatile long latencyMillis = 500;
    private static final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private static final AtomicLong upstreamCalls = new AtomicLong();
    private static final java.util.concurrent.atomic.AtomicReference<String> FIRST_ODD =
            new java.util.concurrent.atomic.AtomicReference<>();

    record Answer(String phase, int status, long millis, long sentAtNanos) {
    }

    public static void main(String[] args) throws Exception {
        String jar = args[0];
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int phaseSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Path work = Files.createTempDirectory("dbfaults");
        try (Connection admin = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres",
                ""); Statement s = admin.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DATABASE);
        }
        startProxy();
        startMock();
        Path catalog = work.resolve("catalog.yml");
        Files.writeString(catalog, """
                providers:
                  mock:
                    type: openai
                    base-url: http://127.0.0.1:%d/v1
                models:
                  - id: bench/mock
                    context-length: 8192
                    max-output-tokens: 1024
                    routes:
                      - provider: mock
                        model: mock
                        input-usd-per-million: "1.00"
                        output-usd-per-million: "2.00"
                """.formatted(MOCK_PORT));
        List<String> env = List.of("DATASOURCES_DEFAULT_URL=jdbc:postgresql://127.0.0.1:" + PROXY_PORT + "/"
                + DATABASE + "?connectTimeout=2&socketTimeout=10", "DATASOURCES_DEFAULT_USERNAME=postgres",
                "TOLLGATE_DATA_DIR=" + work.resolve("data"), "TOLLGATE_CATALOG=" + catalog,
                "MICRONAUT_SERVER_PORT=" + GATEWAY_PORT,
                // Only the database may refuse: one key, one address, requests without pause.
                "TOLLGATE_LIMITS_KEY_PER_MINUTE=1000000000", "TOLLGATE_LIMITS_KEY_BURST=1000000000",
                "TOLLGATE_LIMITS_KEY_IP_PER_MINUTE=1000000000", "TOLLGATE_LIMITS_KEY_IP_BURST=1000000000",
                "TOLLGATE_LIMITS_ACCOUNT_PER_MINUTE=1000000000", "TOLLGATE_LIMITS_ACCOUNT_BURST=1000000000",
                "TOLLGATE_LIMITS_IP_PER_MINUTE=1000000000", "TOLLGATE_LIMITS_IP_BURST=1000000000",
                "TOLLGATE_LIMITS_BEHAVIOUR_IDENTICAL=1000000000", "TOLLGATE_LIMITS_BEHAVIOUR_MINIMAL=1000000000");
        run(jar, env, work, "admin", "account", "create", "--email", "g9@example.test", "--verified", "--credit",
                "100");
        String key = run(jar, env, work, "admin", "api-key", "create", "--email", "g9@example.test", "--name", "g9")
                .strip().lines().reduce((a, b) -> b).orElseThrow();
        Process gateway = start(jar, env, work.resolve("gateway.log"));
        Runtime.getRuntime().addShutdownHook(new Thread(gateway::destroyForcibly)); // also when this run is killed
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            awaitHealth(client);
            List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
            String[] phase = {"normal"};
            long[] back = {0};
            List<Thread> threads = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(phaseSeconds * 3L + 30);
            for (int c = 0; c < clients; c++) {
                int id = c;
                Thread t = new Thread(() -> {
                    long n = 0;
                    while (System.nanoTime() < end) {
                        String body = "{\"model\":\"bench/mock\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\","
                                + "\"content\":\"client " + id + " request " + (n++) + "\"}]}";
                        long sent = System.nanoTime();
                        int status;
                        try {
                            HttpResponse<String> reply = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + GATEWAY_PORT
                                    + "/v1/chat/completions")).timeout(Duration.ofSeconds(60))
                                    .header("Authorization", "Bearer " + key)
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            status = reply.statusCode();
                            if (status != 200 && status != 503 && FIRST_ODD.compareAndSet(null, reply.body())) {
                                System.out.println("first answer that is neither 200 nor 503: " + status + " "
                                        + reply.body());
                            }
                        } catch (IOException | InterruptedException e) {
                            status = 0;
                        }
                        answers.add(new Answer(phase[0], status,
                                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent), sent));
                        if (status != 200) {
                            sleep(50); // a client backs off a little on an error
                        }
                    }
                });
                t.start();
                threads.add(t);
            }
            sleep(phaseSeconds * 1000L);
            phase[0] = "+" + latencyMillis + " ms a round trip";
            mode = Mode.LATENCY;
            sleep(phaseSeconds * 1000L);
            phase[0] = "reset, then down 30 s";
            mode = Mode.DOWN;
            resetAll();
            sleep(30_000);
            phase[0] = "back";
            mode = Mode.PASS;
            back[0] = System.nanoTime();
            for (Thread t : threads) {
                t.join();
            }
            report(answers, back[0]);
            check(work);
        } finally {
            gateway.destroy();
            gateway.waitFor(20, TimeUnit.SECONDS);
            gateway.destroyForcibly();
        }
    }

    private static void report(List<Answer> answers, long backNanos) {
        System.out.println("| Phase | answers | 200 | 503 | other | slowest 503 (ms) | slowest answer (ms) |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (String phase : List.of("normal", "+" + latencyMillis + " ms a round trip", "reset, then down 30 s",
                "back")) {
            List<Answer> of = answers.stream().filter(a -> a.phase().equals(phase)).toList();
            long ok = of.stream().filter(a -> a.status() == 200).count();
            long unavailable = of.stream().filter(a -> a.status() == 503).count();
            long slowest503 = of.stream().filter(a -> a.status() == 503).mapToLong(Answer::millis).max().orElse(0);
            long slowest = of.stream().mapToLong(Answer::millis).max().orElse(0);
            String other = of.stream().filter(a -> a.status() != 200 && a.status() != 503)
                    .collect(java.util.stream.Collectors.groupingBy(a -> a.status() == 0 ? "no answer"
                            : Integer.toString(a.status()), java.util.TreeMap::new,
                            java.util.stream.Collectors.counting())).toString();
            System.out.printf("| %s | %d | %d | %d | %s | %d | %d |%n", phase, of.size(), ok, unavailable,
                    other.equals("{}") ? "0" : other, slowest503, slowest);
        }
        long firstOk = answers.stream().filter(a -> a.status() == 200 && a.sentAtNanos() >= backNanos)
                .mapToLong(a -> a.sentAtNanos() + TimeUnit.MILLISECONDS.toNanos(a.millis())).min().orElse(-1);
        System.out.println();
        System.out.println("first 200 after the database returned: "
                + (firstOk < 0 ? "none" : TimeUnit.NANOSECONDS.toMillis(firstOk - backNanos) + " ms"));
    }

    private static void check(Path work) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        long openHolds;
        long served;
        do {
            sleep(1000);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + DATABASE,
                    "postgres", ""); Statement s = c.createStatement()) {
                openHolds = single(s, "SELECT count(*) FROM request_hold");
                served = single(s, "SELECT count(*) FROM request_ledger WHERE provider IS NOT NULL");
            }
        } while ((openHolds > 0 || served != upstreamCalls.get()) && System.nanoTime() < until);
        System.out.println("upstream calls: " + upstreamCalls.get() + "; ledger rows with a provider: " + served
                + "; holds still open: " + openHolds + " -> "
                + (openHolds == 0 && served == upstreamCalls.get() ? "PASS" : "FAIL")
                + " (every upstream call had a committed hold and was settled)");
        System.out.println("gateway log: " + work.resolve("gateway.log"));
    }

    private static long single(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---- the fault proxy: 127.0.0.1:PROXY_PORT -> 127.0.0.1:5432 ----

    private static void startProxy() throws IOException {
        ServerSocket listener = new ServerSocket(PROXY_PORT, 256, java.net.InetAddress.getLoopbackAddress());
        Thread accept = new Thread(() -> {
            while (true) {
                try {
                    Socket client = listener.accept();
                    if (mode == Mode.DOWN) {
                        client.setSoLinger(true, 0);
                        client.close(); // refused as a database that is gone
                        continue;
                    }
                    Socket server = new Socket("127.0.0.1", 5432);
                    open.add(client);
                    open.add(server);
                    pump(client, server, false);
                    pump(server, client, true);
                } catch (IOException e) {
                    // next
                }
            }
        }, "proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** Copies one direction; answers from the database are delayed while the latency fault is on. */
    private static void pump(Socket from, Socket to, boolean fromDatabase) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (fromDatabase && mode == Mode.LATENCY) {
                        sleep(latencyMillis);
                    }
                    while (mode == Mode.DOWN) {
                        sleep(50);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed or was reset
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void resetAll() {
        for (Socket s : List.copyOf(open)) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException e) {
                // closed already
            }
            closeQuietly(s);
        }
        open.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
        open.remove(s);
    }

    // ---- the counting mock upstream ----

    private static void startMock() throws IOException {
        // The gateway asks every provider for an event stream, also for a JSON answer to its client.
        byte[] answer = ("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"one\"},"
                + "\"finish_reason\":null}]}\n\n"
                + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" two three\"},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}}\n\n"
                + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", MOCK_PORT), 256);
        server.createContext("/v1/chat/completions", exchange -> {
            exchange.getRequestBody().readAllBytes();
            upstreamCalls.incrementAndGet();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.start();
    }

    // ---- processes ----

    private static String run(String jar, List<String> env, Path work, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("java", "-jar", jar));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(work.resolve("cli.log").toFile());
        env.forEach(e -> builder.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1)));
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("failed: " + command + "\n" + out);
        }
        return out;
    }

    private static Process start(String jar, List<String> env, Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("java", "-jar", jar).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        env.forEach(e -> builder.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1)));
        return builder.start();
    }

    private static void awaitHealth(HttpClient client) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            try {
                if (client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + GATEWAY_PORT
                        + "/health/readiness")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            }
            sleep(250);
        }
        throw new IllegalStateException("the gateway did not start");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
