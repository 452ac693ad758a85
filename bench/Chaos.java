import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reliability harness for goals G3, G13 and G14 (docs/performance.md, "Reliability runs"). It starts its own
 * misbehaving OpenAI-compatible upstream, two gateway instances on one PostgreSQL database, and sends REQUESTS
 * streaming completions at CONCURRENCY in a chaos mix: client aborts at a random time, upstream 5xx, upstream
 * connection resets mid-stream, upstreams that go silent past the idle timeout, and normal streams. Part-way through
 * it kills one instance with SIGKILL and starts it again. Afterwards it checks, in the database, that no hold
 * leaked and money adds up, and it reports how fast the upstream saw client aborts and how exact partial billing
 * was. Exits 1 if an invariant fails.
 *
 * With the last argument {@code aborts} it runs the G13 recipe instead: every request is a stream of up to 2,000
 * tokens at one per 10 ms that the client aborts at a uniform random time in [0, 20 s], and no instance is killed.
 *
 * Usage (bench/chaos.sh does all of this):
 *   java -cp bootstrap/target/tollgate.jar bench/Chaos.java JAR JDBC_URL REQUESTS CONCURRENCY [chaos|aborts]
 */
public class Chaos {

    static final int TOKENS_NORMAL = 30;
    static final int TOKEN_INTERVAL_MS = 10;
    static int tokensLong = 400;          // abort trials: 1 token every 10 ms for up to 4 s (aborts run: 2,000)
    static long abortWindowMs = 3000;     // client aborts uniformly in [0, 3 s] (aborts run: [0, 20 s])
    static boolean abortsOnly;
    static final Pattern MARK = Pattern.compile("chaos (\\w+) (\\d+)");

    enum Mode { NORMAL, ABORT, UPSTREAM_5XX, RESET, HANG }

    /** What the upstream saw of one trial. */
    record Upstream(int tokensWritten, long closedAtNanos, long receivedAtNanos, long firstTokenAtNanos) {
    }

    /** What the client saw of one trial. */
    record Trial(int id, Mode mode, int instance, int status, String requestId, boolean done, int errorEvents,
            int contentChunks, long abortedAtNanos, String failure, long startNanos, long endNanos, boolean stream,
            long firstTokenAtNanos) {

        /** Whether the killed instance cut this exchange (it was running on instance 0 when the kill came). */
        boolean cutByKill() {
            return instance == 0 && startNanos < killedAtNanos && endNanos >= killedAtNanos;
        }
    }

    static final Map<Integer, Upstream> UPSTREAM = new ConcurrentHashMap<>();
    static volatile long killedAtNanos = Long.MAX_VALUE;

    public static void main(String[] args) throws Exception {
        String jar = args[0];
        String jdbc = args[1];
        int requests = Integer.parseInt(args[2]);
        int concurrency = Integer.parseInt(args[3]);
        abortsOnly = args.length > 4 && args[4].equals("aborts");
        if (abortsOnly) {
            tokensLong = 2000;
            abortWindowMs = 20_000;
        }
        Path work = Files.createTempDirectory("tollgate-chaos");

        ServerSocket mock = new ServerSocket();
        mock.bind(new InetSocketAddress("127.0.0.1", 0), 512);
        Thread acceptor = new Thread(() -> serveMock(mock), "mock-accept");
        acceptor.setDaemon(true);
        acceptor.start();

        Path catalog = writeCatalog(work, mock.getLocalPort());

        int[] ports = {freePort(), freePort()};
        Process[] gateways = new Process[2];
        for (int i = 0; i < 2; i++) {
            gateways[i] = startGateway(jar, jdbc, catalog, ports[i], work.resolve("gateway-" + i + ".log"));
        }
        for (int port : ports) {
            awaitUp(port);
        }
        String email = "chaos-" + System.nanoTime() + "@example.test";
        admin(jar, jdbc, "account", "create", "--email", email, "--verified", "--credit", "100");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            keys.add(admin(jar, jdbc, "api-key", "create", "--email", email, "--name", "chaos-" + i).strip());
        }
        long creditMicros = 100_000_000L;

        Random random = new Random(20261122);
        Mode[] modes = new Mode[requests];
        for (int i = 0; i < requests; i++) {
            double p = abortsOnly ? 0 : random.nextDouble();
            modes[i] = p < 0.30 ? Mode.ABORT : p < 0.40 ? Mode.UPSTREAM_5XX : p < 0.50 ? Mode.RESET
                    : p < 0.55 ? Mode.HANG : Mode.NORMAL;
        }
        warmUp(ports, keys);
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        List<Future<Trial>> futures = new ArrayList<>();
        AtomicInteger finished = new AtomicInteger();
        long start = System.nanoTime();
        for (int i = 0; i < requests; i++) {
            int id = i;
            int instance = i % 2;
            long abortAfter = (long) (random.nextDouble() * abortWindowMs);
            String key = keys.get(i % keys.size());
            futures.add(pool.submit(() -> {
                try {
                    return runTrial(id, modes[id], instance, ports, key, abortAfter);
                } finally {
                    finished.incrementAndGet();
                }
            }));
        }
        if (!abortsOnly) {
            // Kill instance 0 with SIGKILL when 40 % of the requests are done, and start it again.
            while (finished.get() < requests * 2 / 5) {
                Thread.sleep(20);
            }
            killedAtNanos = System.nanoTime();
            gateways[0].destroyForcibly().waitFor();
            System.out.printf("killed instance 0 (SIGKILL) after %d of %d requests%n", finished.get(), requests);
            Thread.sleep(500);
            gateways[0] = startGateway(jar, jdbc, catalog, ports[0], work.resolve("gateway-0-restarted.log"));
            awaitUp(ports[0]);
            System.out.println("instance 0 restarted");
        }

        List<Trial> trials = new ArrayList<>();
        for (Future<Trial> future : futures) {
            trials.add(future.get());
        }
        pool.shutdown();
        long lastRequestEnded = System.nanoTime();
        System.out.printf("%d requests in %.1f s%n", requests, (lastRequestEnded - start) / 1e9);

        boolean ok = verify(jdbc, trials, creditMicros, email, lastRequestEnded);
        for (Process gateway : gateways) {
            gateway.destroy();
            gateway.waitFor(30, TimeUnit.SECONDS);
        }
        System.exit(ok ? 0 : 1);
    }

    /** The catalog of one model served by the chaos upstream at {@code mockPort}: $1 per million output tokens. */
    static Path writeCatalog(Path work, int mockPort) throws IOException {
        Path catalog = work.resolve("catalog.yml");
        Files.writeString(catalog, """
                providers:
                  chaos:
                    type: openai
                    base-url: http://127.0.0.1:%d/v1
                models:
                  - id: chaos/mock
                    context-length: 8192
                    max-output-tokens: 4000
                    routes:
                      - provider: chaos
                        model: mock
                        input-usd-per-million: "0"
                        output-usd-per-million: "1"
                """.formatted(mockPort));
        return catalog;
    }

    /** 400 normal streams over both instances, not counted. */
    static void warmUp(int[] ports, List<String> keys) throws Exception {
        // Warm-up, not counted: a freshly started JVM spends its first minute compiling (docs/performance.md).
        ExecutorService warm = Executors.newFixedThreadPool(8);
        List<Future<Trial>> warming = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            int instance = i % 2;
            String key = keys.get(i % keys.size());
            int id = 1_000_000 + i;
            warming.add(warm.submit(() -> runTrial(id, Mode.NORMAL, instance, ports, key, 0)));
        }
        for (Future<Trial> f : warming) {
            f.get();
        }
        warm.shutdown();
    }

    // ---------------------------------------------------------------------------------------------------------
    // The client side: one raw HTTP/1.1 exchange per trial, so an abort is a plain socket close.

    static Trial runTrial(int id, Mode mode, int instance, int[] ports, String key, long abortAfterMs) {
        return runTrial(id, mode, instance, ports, key, abortAfterMs, true, "");
    }

    /**
     * One trial (bench/Soak.java's mix): {@code stream} false asks for a whole JSON answer; {@code words} come before
     * the mark the upstream reads (varied words keep real traffic's prompts apart for the behavioural cooldown).
     */
    static Trial runTrial(int id, Mode mode, int instance, int[] ports, String key, long abortAfterMs,
            boolean stream, String words) {
        String body = "{\"model\":\"chaos/mock\",\"stream\":" + stream + ",\"max_tokens\":3000,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + words + "chaos " + mode.name().toLowerCase() + " " + id + "\"}]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        long startNanos = System.nanoTime();
        long abortAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(abortAfterMs);
        try (Socket socket = new Socket("127.0.0.1", ports[instance])) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            if (mode == Mode.ABORT) {
                socket.setSoTimeout(1);
            } else {
                socket.setSoTimeout(60_000);
            }
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            long firstTokenAt = 0;
            while (true) {
                if (mode == Mode.ABORT && System.nanoTime() >= abortAt) {
                    long abortedAt = System.nanoTime();
                    socket.setSoLinger(true, 0);
                    socket.close();
                    return parse(id, mode, instance, received, abortedAt, startNanos, stream, firstTokenAt);
                }
                int n;
                try {
                    n = in.read(buffer);
                } catch (java.net.SocketTimeoutException e) {
                    continue;
                }
                if (n < 0) {
                    break;
                }
                received.write(buffer, 0, n);
                if (firstTokenAt == 0 && received.toString(StandardCharsets.UTF_8).contains(" tok\"")) {
                    firstTokenAt = System.nanoTime(); // the first token the upstream wrote reached the client
                }
            }
            return parse(id, mode, instance, received, 0, startNanos, stream, firstTokenAt);
        } catch (IOException e) {
            return new Trial(id, mode, instance, 0, null, false, 0, 0, 0, e.toString(), startNanos, System.nanoTime(),
                    stream, 0);
        }
    }

    static Trial parse(int id, Mode mode, int instance, ByteArrayOutputStream received, long abortedAt,
            long startNanos, boolean stream, long firstTokenAt) {
        String text = received.toString(StandardCharsets.UTF_8);
        int status = 0;
        String requestId = null;
        int headerEnd = text.indexOf("\r\n\r\n");
        if (text.startsWith("HTTP/1.1 ") && text.length() >= 12) {
            status = Integer.parseInt(text.substring(9, 12));
        }
        if (headerEnd > 0) {
            for (String line : text.substring(0, headerEnd).split("\r\n")) {
                if (line.toLowerCase().startsWith("x-request-id:")) {
                    requestId = line.substring(13).strip();
                }
            }
        }
        String payload = headerEnd > 0 ? text.substring(headerEnd + 4) : "";
        boolean done = payload.contains("data: [DONE]");
        int errors = 0;
        int content = 0;
        for (String line : payload.split("\n")) {
            if (line.startsWith("data: {\"error\"") || (line.startsWith("data: ") && line.contains("\"finish_reason\":\"error\""))) {
                errors++;
            }
            if (line.startsWith("data: ") && line.contains("\"content\":\" tok\"")) {
                content++;
            }
        }
        return new Trial(id, mode, instance, status, requestId, done, errors, content, abortedAt, null, startNanos,
                System.nanoTime(), stream, firstTokenAt);
    }

    // ---------------------------------------------------------------------------------------------------------
    // The misbehaving upstream: one connection per request (Connection: close), behaviour chosen by the prompt.

    static void serveMock(ServerSocket server) {
        ExecutorService workers = Executors.newCachedThreadPool();
        while (true) {
            try {
                Socket socket = server.accept();
                workers.execute(() -> serveOne(socket));
            } catch (IOException e) {
                return;
            }
        }
    }

    static void serveOne(Socket socket) {
        int trial = -1;
        int written = 0;
        long receivedAt = 0;
        long firstTokenAt = 0;
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new java.io.BufferedInputStream(socket.getInputStream()); // the head is read byte by byte
            String head = readHead(in);
            int length = 0;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
            receivedAt = System.nanoTime(); // the gateway's request arrived: its admission took until now
            Matcher m = MARK.matcher(body);
            if (!m.find()) {
                return;
            }
            Mode mode = Mode.valueOf(m.group(1).toUpperCase());
            trial = Integer.parseInt(m.group(2));
            OutputStream out = socket.getOutputStream();
            if (mode == Mode.UPSTREAM_5XX) {
                byte[] error = "{\"error\":{\"message\":\"chaos: upstream failure\"}}".getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: "
                        + error.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(error);
                out.flush();
                return;
            }
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            send(out, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                    + "\"finish_reason\":null}]}");
            int tokens = switch (mode) {
                case ABORT -> tokensLong;
                case RESET -> 10;
                case HANG -> 3;
                default -> TOKENS_NORMAL;
            };
            socket.setSoTimeout(1);
            for (int i = 0; i < tokens; i++) {
                Thread.sleep(TOKEN_INTERVAL_MS - 1);
                if (peerClosed(in)) {
                    return; // the gateway closed the connection (a client abort or a timeout reached us)
                }
                if (written == 0) {
                    firstTokenAt = System.nanoTime();
                }
                send(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok\"},\"finish_reason\":null}]}");
                written++;
            }
            if (mode == Mode.RESET) {
                socket.setSoLinger(true, 0); // close with RST: the gateway sees a connection reset mid-stream
                return;
            }
            if (mode == Mode.HANG) {
                // silent until the gateway gives up (its idle timeout) and closes the connection
                socket.setSoTimeout(0);
                while (in.read() >= 0) {
                    // nothing is sent; a read returns -1 once the gateway closed its side
                }
                return;
            }
            send(out, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
            send(out, "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":" + tokens
                    + ",\"total_tokens\":" + (tokens + 5) + "}}");
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException | InterruptedException e) {
            // the gateway closed the connection: an abort (or a cancelled fallback) reached us
        } finally {
            if (trial >= 0) {
                UPSTREAM.put(trial, new Upstream(written, System.nanoTime(), receivedAt, firstTokenAt));
            }
        }
    }

    /** Whether the other side closed the connection (a read sees end of stream within 1 ms). */
    static boolean peerClosed(InputStream in) throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }

    static void send(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            state = (b == '\r' || b == '\n') ? state + 1 : 0;
            if (state == 4) {
                break;
            }
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Checks

    static boolean verify(String jdbc, List<Trial> trials, long creditMicros, String email, long lastRequestEnded)
            throws Exception {
        boolean ok = true;
        Class.forName("org.postgresql.Driver"); // from the gateway's jar on the class path
        try (Connection db = DriverManager.getConnection(jdbc, "postgres", "")) {
            // G3: within the instance lease (15 s) + 10 s of the last request, no hold is open and nothing reserved.
            long deadline = lastRequestEnded + TimeUnit.SECONDS.toNanos(25);
            long holds;
            long reserved;
            do {
                holds = single(db, "SELECT count(*) FROM request_hold h JOIN account a ON a.id = h.account_id "
                        + "WHERE a.email = '" + email + "'");
                reserved = single(db, "SELECT reserved_micros FROM account WHERE email = '" + email + "'");
                if (holds == 0 && reserved == 0) {
                    break;
                }
                Thread.sleep(250);
            } while (System.nanoTime() < deadline);
            double settledAfter = (System.nanoTime() - lastRequestEnded) / 1e9;
            ok &= check(holds == 0 && reserved == 0, String.format("G3 no leaked hold: open holds %d, reserved %d µUSD,"
                    + " %.1f s after the last request", holds, reserved, settledAfter));

            Map<String, long[]> ledger = new HashMap<>(); // request id -> {rows, cost, completion tokens, held}
            Map<String, String> statusOf = new HashMap<>();
            try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT l.request_id, l.cost_micros, "
                    + "l.completion_tokens, l.held_micros, l.status FROM request_ledger l JOIN account a "
                    + "ON a.id = l.account_id WHERE a.email = '" + email + "'")) {
                while (rs.next()) {
                    ledger.merge(rs.getString(1), new long[] {1, rs.getLong(2), rs.getLong(3), rs.getLong(4)},
                            (x, y) -> new long[] {x[0] + y[0], x[1], x[2], x[3]});
                    statusOf.put(rs.getString(1), rs.getString(5));
                }
            }
            int seen = 0;
            int missing = 0;
            for (Trial t : trials) {
                // Refusals before admission (503 database unavailable, 429, 4xx) never held anything: no ledger row.
                boolean admitted = t.status() == 200 || t.status() == 502 || t.status() == 504
                        || (t.status() == 0 && t.requestId() != null);
                if (t.requestId() != null && admitted) {
                    seen++;
                    long[] row = ledger.get(t.requestId());
                    if (row == null || row[0] != 1) {
                        missing++;
                    }
                }
            }
            ok &= check(missing == 0, "G3 exactly one ledger row for each of the " + seen
                    + " admitted requests whose id clients saw (missing or duplicated: " + missing + ")");

            long charged = single(db, "SELECT coalesce(sum(l.cost_micros), 0) FROM request_ledger l JOIN account a "
                    + "ON a.id = l.account_id WHERE a.email = '" + email + "'");
            long atRest = single(db, "SELECT balance_micros + reserved_micros FROM account WHERE email = '" + email
                    + "'");
            ok &= check(atRest + charged == creditMicros, "G3/G4 balance + charges = credit: " + atRest + " + "
                    + charged + " = " + (atRest + charged) + " (credit " + creditMicros + ")");
            long keyMismatch = single(db, "SELECT count(*) FROM api_key k JOIN account a ON a.id = k.account_id "
                    + "WHERE a.email = '" + email + "' AND coalesce((SELECT spent_micros FROM api_key_spend s "
                    + "WHERE s.api_key_id = k.id AND s.period = 'lifetime'), 0) <> (SELECT coalesce(sum(cost_micros), 0) "
                    + "FROM request_ledger l WHERE l.api_key_id = k.id)");
            ok &= check(keyMismatch == 0, "G3 every key's spend counter = the sum of its ledger rows (keys off: "
                    + keyMismatch + ")");

            // G14: every stream the client read to its end finished with [DONE] or exactly one error event.
            int unclean = 0;
            int streams = 0;
            for (Trial t : trials) {
                if (t.mode() == Mode.ABORT || t.failure() != null || t.status() != 200 || t.cutByKill()
                        || !t.stream()) {
                    continue;
                }
                streams++;
                boolean clean = (t.done() && t.errorEvents() == 0) || (!t.done() && t.errorEvents() == 1);
                if (!clean) {
                    unclean++;
                }
            }
            ok &= check(unclean == 0, "G14 " + streams + " streams read to the end: " + unclean
                    + " ended without [DONE] or exactly one terminal error event");
            int resetsCharged = 0;
            int resets = 0;
            int hangs = 0;
            int hangsEnded = 0;
            for (Trial t : trials) {
                if (t.requestId() == null || t.failure() != null || t.cutByKill()) {
                    continue;
                }
                long[] row = ledger.get(t.requestId());
                if (t.mode() == Mode.RESET && t.status() == 200) {
                    resets++;
                    if (row != null && row[1] == t.contentChunks() && t.errorEvents() == 1) {
                        resetsCharged++;
                    } else {
                        System.out.printf("  reset trial %d: %d error events, client got %d tokens, charged %s µUSD, "
                                + "ledger status %s%n", t.id(), t.errorEvents(), t.contentChunks(),
                                row == null ? "no row" : Long.toString(row[1]), statusOf.get(t.requestId()));
                    }
                }
                if (t.mode() == Mode.HANG && t.status() == 200) {
                    hangs++;
                    if (t.errorEvents() == 1 && row != null && "failed".equals(statusOf.get(t.requestId()))) {
                        hangsEnded++;
                    }
                }
            }
            ok &= check(resetsCharged == resets, "G14 reset_peer mid-stream: " + resetsCharged + " of " + resets
                    + " ended with one error event and were charged exactly the tokens delivered");
            ok &= check(hangsEnded == hangs, "G14 silent upstream: " + hangsEnded + " of " + hangs
                    + " ended by the idle timeout with one error event and a failed ledger row");

            // G13: how fast the upstream saw the client's abort, and whether partial billing matched it.
            List<Long> closeMillis = new ArrayList<>();
            int exact = 0;
            int offByOne = 0;
            int worse = 0;
            int zeroWithTokens = 0;
            int fullHold = 0;
            int aborts = 0;
            for (Trial t : trials) {
                if (t.mode() != Mode.ABORT || t.abortedAtNanos() == 0 || t.failure() != null || t.cutByKill()) {
                    continue;
                }
                Upstream up = UPSTREAM.get(t.id());
                if (up == null) {
                    continue; // aborted before the gateway called the upstream
                }
                aborts++;
                closeMillis.add(Math.max(0, (up.closedAtNanos() - t.abortedAtNanos()) / 1_000_000));
                if (t.requestId() == null) {
                    continue; // aborted before the first byte: no id to look up (charged nothing, see below)
                }
                long[] row = ledger.get(t.requestId());
                if (row == null) {
                    continue;
                }
                long diff = Math.abs(row[2] - up.tokensWritten());
                if (diff == 0) {
                    exact++;
                } else if (diff == 1) {
                    offByOne++;
                } else {
                    worse++;
                    if (worse <= 10) {
                        System.out.printf("  trial %d: upstream wrote %d tokens, charged %d tokens, client got %d, "
                                + "upstream closed %d ms after the abort%n", t.id(), up.tokensWritten(), row[2],
                                t.contentChunks(), (up.closedAtNanos() - t.abortedAtNanos()) / 1_000_000);
                    }
                }
                if (row[1] == 0 && up.tokensWritten() > 1) {
                    zeroWithTokens++;
                }
                if (row[1] == row[3]) {
                    fullHold++;
                }
            }
            Collections.sort(closeMillis);
            long within1s = closeMillis.stream().filter(ms -> ms <= 1000).count();
            System.out.printf("G13 %d aborted streams: upstream closed p50 %d ms, p99 %d ms, max %d ms after the "
                    + "client left; %.2f %% within 1 s%n", aborts, pct(closeMillis, 50), pct(closeMillis, 99),
                    closeMillis.isEmpty() ? 0 : closeMillis.get(closeMillis.size() - 1),
                    closeMillis.isEmpty() ? 100.0 : 100.0 * within1s / closeMillis.size());
            System.out.printf("G13 charged tokens vs tokens the upstream wrote: %d exact, %d off by one chunk, %d "
                    + "further off; %d charged 0 after more than one token; %d charged the full hold%n", exact,
                    offByOne, worse, zeroWithTokens, fullHold);
            ok &= check(closeMillis.isEmpty() || within1s * 1000 >= closeMillis.size() * 999L,
                    "G13 upstream closed within 1 s of the abort in >= 99.9 % of trials");
            ok &= check(pct(closeMillis, 99) <= 500, "G13 p99 close latency <= 500 ms");
            ok &= check(worse == 0 && zeroWithTokens == 0 && fullHold == 0,
                    "G13 partial billing within one chunk, never 0 after tokens, never the full hold");
            Map<Mode, Integer> byMode = new HashMap<>();
            Map<Integer, Integer> byStatus = new HashMap<>();
            for (Trial t : trials) {
                byMode.merge(t.mode(), 1, Integer::sum);
                byStatus.merge(t.status(), 1, Integer::sum);
            }
            System.out.println("mix: " + byMode + "; statuses seen by clients: " + byStatus
                    + " (0 = connection lost, e.g. to the killed instance, or aborted before the headers)");
        }
        return ok;
    }

    static long pct(List<Long> sorted, int p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }

    static boolean check(boolean passed, String what) {
        System.out.println((passed ? "PASS " : "FAIL ") + what);
        return passed;
    }

    static long single(Connection db, String sql) throws Exception {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Processes

    static Process startGateway(String jar, String jdbc, Path catalog, int port, Path log) throws IOException {
        return startGateway(jar, jdbc, catalog, port, log, true);
    }

    /** A gateway instance; {@code raisedLimits} false keeps the traffic limits at their defaults (bench/Soak.java). */
    static Process startGateway(String jar, String jdbc, Path catalog, int port, Path log, boolean raisedLimits)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder("java", "-jar", jar);
        builder.environment().put("DATASOURCES_DEFAULT_URL", jdbc);
        builder.environment().put("DATASOURCES_DEFAULT_USERNAME", "postgres");
        builder.environment().put("MICRONAUT_SERVER_PORT", Integer.toString(port));
        builder.environment().put("TOLLGATE_CATALOG", catalog.toString());
        builder.environment().put("TOLLGATE_COMPLETIONS_IDLE_TIMEOUT", "2s");
        // G3's profile is about holds and streams: the traffic limits stay on but far above this load, so that
        // the chaos prompts ("chaos normal 17", minimal and near-identical) are not paused by the behavioural
        // cooldown and no stream is refused for concurrency.
        for (String limit : List.of("KEY_PER_MINUTE", "KEY_BURST", "KEY_IP_PER_MINUTE", "KEY_IP_BURST",
                "ACCOUNT_PER_MINUTE", "ACCOUNT_BURST", "IP_PER_MINUTE", "IP_BURST", "KEY_CONCURRENCY",
                "ACCOUNT_CONCURRENCY", "BEHAVIOUR_IDENTICAL", "BEHAVIOUR_MINIMAL")) {
            if (raisedLimits) {
                builder.environment().put("TOLLGATE_LIMITS_" + limit, "1000000");
            }
        }
        builder.redirectErrorStream(true).redirectOutput(log.toFile());
        return builder.start();
    }

    static String admin(String jar, String jdbc, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("java", "-jar", jar, "admin"));
        command.addAll(Arrays.asList(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("DATASOURCES_DEFAULT_URL", jdbc);
        builder.environment().put("DATASOURCES_DEFAULT_USERNAME", "postgres");
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("admin " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static void awaitUp(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                if (new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200")) {
                    return;
                }
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("gateway on port " + port + " did not start");
    }
}
