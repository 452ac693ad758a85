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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Soak run for goal G17 (docs/performance.md, "Soak"). Two gateway instances on one PostgreSQL database with the
 * traffic limits at their defaults, bench/Chaos.java's upstream (30 tokens at one per 10 ms, or its misbehaviours),
 * and an open-loop load of RATE requests a second — by default half the account's limit of 3,000 a minute, spread
 * over five keys (half of each key's 600) — for MINUTES: 70 % streams, 30 % whole answers, and 1 % chaos in G3's
 * proportions (client aborts, upstream 5xx, resets mid-stream, silent upstreams). Every WINDOW minutes it prints the
 * requests and their statuses, the gateway-added time to the first token (the upstream's receipt of the request
 * minus the client's send, plus the client's receipt of the first token minus the upstream's send of it — one
 * process, one clock), each instance's heap after a full GC (jcmd) and the database's connections. At the end it
 * checks G17's soak criteria — heap after GC drifts at most 10 %, the database connections return to their
 * baseline, the added p99 at most 20 ms and within ±20 % from one hour (or, in a shorter run, half) to the next, no
 * concurrency slot held — and G3's money checks (bench/Chaos.java: no hold left, one ledger row per request,
 * balance + charges = credit). Exits 1 if one fails.
 *
 * It reuses Chaos.java's upstream, client and checks, so it needs Java 22 or later (the source launcher compiles
 * Chaos.java beside it); bench/soak.sh runs it:
 *   java -cp bootstrap/target/tollgate.jar bench/Soak.java JAR JDBC_URL MINUTES RATE WINDOW_MINUTES
 */
public class Soak {

    static final Pattern USED = Pattern.compile("used (\\d+)K");

    /** Words of the prompts: real traffic differs from request to request (the behavioural cooldown's concern). */
    static final String[] WORDS = buildWords();

    static String[] buildWords() {
        String[] stems = {"river", "market", "engine", "garden", "signal", "ladder", "winter", "copper", "harbor",
            "planet", "window", "basket", "forest", "mirror", "pencil", "rocket", "castle", "button", "candle", "desert",
            "falcon", "ginger", "hammer", "island", "jacket", "kettle", "lemon", "meadow", "needle", "orbit"};
        String[] endings = {"", "s", "ing", "er", "ly", "ful", "less", "ish"};
        List<String> words = new ArrayList<>();
        for (String stem : stems) {
            for (String ending : endings) {
                words.add(stem + ending);
            }
        }
        return words.toArray(new String[0]);
    }

    /** What one window saw. */
    record Window(int number, double endMinute, int requests, Map<Integer, Integer> statuses, List<Long> addedMicros,
            List<Long> heapKib, long dbConnections) {

        long p(int percent) {
            return Chaos.pct(addedMicros, percent);
        }
    }

    public static void main(String[] args) throws Exception {
        String jar = args[0];
        String jdbc = args[1];
        double minutes = Double.parseDouble(args[2]);
        double rate = Double.parseDouble(args[3]);
        double windowMinutes = Double.parseDouble(args[4]);
        Path work = Files.createTempDirectory("tollgate-soak");

        ServerSocket mock = new ServerSocket();
        mock.bind(new InetSocketAddress("127.0.0.1", 0), 512);
        Thread acceptor = new Thread(() -> Chaos.serveMock(mock), "mock-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        Path catalog = Chaos.writeCatalog(work, mock.getLocalPort());

        int[] ports = {Chaos.freePort(), Chaos.freePort()};
        Process[] gateways = new Process[2];
        for (int i = 0; i < 2; i++) {
            gateways[i] = Chaos.startGateway(jar, jdbc, catalog, ports[i], work.resolve("gateway-" + i + ".log"),
                    false);
        }
        for (int port : ports) {
            Chaos.awaitUp(port);
        }
        String email = "soak-" + System.nanoTime() + "@example.test";
        Chaos.admin(jar, jdbc, "account", "create", "--email", email, "--verified", "--credit", "100");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            keys.add(Chaos.admin(jar, jdbc, "api-key", "create", "--email", email, "--name", "soak-" + i).strip());
        }
        long creditMicros = 100_000_000L;
        Chaos.warmUp(ports, keys);
        Thread.sleep(5_000);
        Class.forName("org.postgresql.Driver"); // from the gateway's jar on the class path
        long baselineConnections = dbConnections(jdbc);
        System.out.printf("soak: %.0f min at %.1f requests/s over 2 instances (ports %d, %d), logs in %s; database "
                + "connections after warm-up: %d%n", minutes, rate, ports[0], ports[1], work, baselineConnections);

        ExecutorService clients = Executors.newCachedThreadPool();
        ConcurrentLinkedQueue<Chaos.Trial> finished = new ConcurrentLinkedQueue<>();
        List<Chaos.Trial> all = new ArrayList<>();
        List<Window> windows = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger running = new AtomicInteger();
        Random random = new Random(20261129);
        long periodNanos = (long) (1e9 / rate);
        long start = System.nanoTime();
        long end = start + (long) (minutes * 60e9);
        long windowNanos = (long) (windowMinutes * 60e9);
        // Reported from a thread of its own: the full GCs and queries take a second or two, which would hold the
        // open loop back.
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor();
        reporter.scheduleAtFixedRate(() -> {
            try {
                windows.add(report(windows.size() + 1, start, finished, all, gateways, jdbc));
            } catch (Exception e) {
                System.out.println("report failed: " + e);
            }
        }, windowNanos, windowNanos, TimeUnit.NANOSECONDS);
        for (long i = 0; ; i++) {
            long due = start + i * periodNanos;
            if (due >= end) {
                break;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            int id = 2_000_000 + (int) i;
            double p = random.nextDouble();
            Chaos.Mode mode = Chaos.Mode.NORMAL;
            if (p < 0.01) { // G3's mix, scaled to 1 %: aborts 30, 5xx 10, resets 10, silent 5
                double q = p / 0.01 * 55;
                mode = q < 30 ? Chaos.Mode.ABORT : q < 40 ? Chaos.Mode.UPSTREAM_5XX : q < 50 ? Chaos.Mode.RESET
                        : Chaos.Mode.HANG;
            }
            boolean stream = mode != Chaos.Mode.NORMAL || random.nextDouble() < 0.7;
            long abortAfter = (long) (random.nextDouble() * 3000);
            int instance = (int) (i % 2);
            String key = keys.get((int) (i % keys.size()));
            Chaos.Mode chosen = mode;
            StringBuilder words = new StringBuilder();
            for (int w = 0; w < 6; w++) { // a question of six words from a few hundred: no two alike
                words.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            String prompt = words.toString();
            running.incrementAndGet();
            clients.execute(() -> {
                try {
                    finished.add(Chaos.runTrial(id, chosen, instance, ports, key, abortAfter, stream, prompt));
                } finally {
                    running.decrementAndGet();
                }
            });
        }
        clients.shutdown();
        clients.awaitTermination(2, TimeUnit.MINUTES);
        long lastRequestEnded = System.nanoTime();
        reporter.shutdown();
        reporter.awaitTermination(1, TimeUnit.MINUTES);
        windows.add(report(windows.size() + 1, start, finished, all, gateways, jdbc));
        System.out.printf("%d requests in %.1f min (%d still running)%n", all.size(),
                (lastRequestEnded - start) / 60e9, running.get());

        boolean ok = Chaos.verify(jdbc, all, creditMicros, email, lastRequestEnded);
        Thread.sleep(10_000); // idle: the pools settle back
        long endConnections = dbConnections(jdbc);
        ok &= Chaos.check(endConnections <= baselineConnections, "G17 database connections back to the baseline: "
                + endConnections + " at rest after the run, " + baselineConnections + " after the warm-up");
        for (int i = 0; i < ports.length; i++) {
            String inFlight = metric(ports[i], "tollgate_requests_in_flight");
            ok &= Chaos.check("0.0".equals(inFlight) || "0".equals(inFlight), "G17 instance " + i
                    + " holds no concurrency slot at rest: tollgate_requests_in_flight " + inFlight);
        }
        List<Long> firstHeap = windows.get(0).heapKib();
        List<Long> lastHeap = heapAfterGc(gateways);
        for (int i = 0; i < gateways.length; i++) {
            long drift = (lastHeap.get(i) - firstHeap.get(i)) * 100 / Math.max(1, firstHeap.get(i));
            ok &= Chaos.check(drift <= 10, String.format("G17 instance %d heap after a full GC: %.1f MiB after the "
                    + "first window, %.1f MiB at the end (%+d %%, at most +10 %%)", i, firstHeap.get(i) / 1024.0,
                    lastHeap.get(i) / 1024.0, drift));
        }
        // Hour over hour (half over half in a run shorter than two hours).
        double spanMinutes = minutes >= 120 ? 60 : minutes / 2;
        Map<Integer, List<Long>> byPart = new TreeMap<>();
        for (Window w : windows) {
            // By the window's number, not its end time: a report a little late (60.02 min) belongs to the hour it closes.
            int part = (int) Math.min((w.number() - 1) * windowMinutes / spanMinutes, minutes / spanMinutes - 1);
            byPart.computeIfAbsent(part, k -> new ArrayList<>()).addAll(w.addedMicros());
        }
        Long previous = null;
        for (Map.Entry<Integer, List<Long>> part : byPart.entrySet()) {
            Collections.sort(part.getValue());
            long p99 = Chaos.pct(part.getValue(), 99);
            ok &= Chaos.check(p99 <= 20_000, String.format("G17 gateway-added time to first token, minutes %.0f-%.0f: "
                    + "p50 %.2f ms, p99 %.2f ms (at most 20 ms; %d streams)", part.getKey() * spanMinutes,
                    (part.getKey() + 1) * spanMinutes, Chaos.pct(part.getValue(), 50) / 1000.0, p99 / 1000.0,
                    part.getValue().size()));
            if (previous != null) {
                long change = (p99 - previous) * 100 / Math.max(1, previous);
                ok &= Chaos.check(Math.abs(change) <= 20, String.format("G17 added p99 stable: %+d %% from the "
                        + "previous %.0f minutes (within ±20 %%)", change, spanMinutes));
            }
            previous = p99;
        }
        for (Process gateway : gateways) {
            gateway.destroy();
            gateway.waitFor(30, TimeUnit.SECONDS);
        }
        System.exit(ok ? 0 : 1);
    }

    /** The trials finished since the last window: their statuses and added latencies, the heaps and connections. */
    static Window report(int number, long start, ConcurrentLinkedQueue<Chaos.Trial> finished, List<Chaos.Trial> all,
            Process[] gateways, String jdbc) throws Exception {
        List<Chaos.Trial> trials = new ArrayList<>();
        for (Chaos.Trial t; (t = finished.poll()) != null; ) {
            trials.add(t);
        }
        all.addAll(trials);
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<Long> added = new ArrayList<>();
        List<Long> admissions = new ArrayList<>();
        List<Long> passOns = new ArrayList<>();
        for (Chaos.Trial t : trials) {
            statuses.merge(t.status(), 1, Integer::sum);
            Chaos.Upstream up = Chaos.UPSTREAM.get(t.id());
            if (t.mode() == Chaos.Mode.NORMAL && t.stream() && t.status() == 200 && t.firstTokenAtNanos() > 0
                    && up != null && up.firstTokenAtNanos() > 0) {
                long admission = up.receivedAtNanos() - t.startNanos();
                long passOn = t.firstTokenAtNanos() - up.firstTokenAtNanos();
                added.add((admission + passOn) / 1_000);
                admissions.add(admission / 1_000);
                passOns.add(passOn / 1_000);
            }
        }
        Collections.sort(added);
        Collections.sort(admissions);
        Collections.sort(passOns);
        List<Long> heap = heapAfterGc(gateways);
        long connections = dbConnections(jdbc);
        double minute = (System.nanoTime() - start) / 60e9;
        Window window = new Window(number, minute, trials.size(), statuses, added, heap, connections);
        System.out.printf("[%5.1f min] %6d requests %s; added TTFT p50 %.2f ms p99 %.2f ms (%d streams; p50/p99 of "
                + "the request's way in %.2f/%.2f ms, of the first token's way out %.2f/%.2f ms); heap after GC %.1f / "
                + "%.1f MiB; db connections %d%n", minute, trials.size(), statuses, window.p(50) / 1000.0,
                window.p(99) / 1000.0, added.size(), Chaos.pct(admissions, 50) / 1000.0,
                Chaos.pct(admissions, 99) / 1000.0, Chaos.pct(passOns, 50) / 1000.0, Chaos.pct(passOns, 99) / 1000.0,
                heap.get(0) / 1024.0, heap.get(1) / 1024.0, connections);
        return window;
    }

    /** Each instance's used heap right after a full collection it was asked for (jcmd GC.run, GC.heap_info). */
    static List<Long> heapAfterGc(Process[] gateways) throws Exception {
        List<Long> used = new ArrayList<>();
        for (Process gateway : gateways) {
            jcmd(gateway.pid(), "GC.run");
            long kib = 0;
            for (String line : jcmd(gateway.pid(), "GC.heap_info").split("\n")) {
                // The heap's own lines ("garbage-first heap total …, used …K"), not Metaspace's or class space's.
                if (line.contains("total") && !line.strip().startsWith("Metaspace")
                        && !line.strip().startsWith("class space")) {
                    Matcher m = USED.matcher(line);
                    if (m.find()) {
                        kib += Long.parseLong(m.group(1));
                    }
                }
            }
            used.add(kib);
        }
        return used;
    }

    static String jcmd(long pid, String command) throws Exception {
        Process process = new ProcessBuilder("jcmd", Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return out;
    }

    static long dbConnections(String jdbc) throws Exception {
        try (Connection db = DriverManager.getConnection(jdbc, "postgres", "")) {
            return Chaos.single(db, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND pid <> pg_backend_pid()");
        }
    }

    /** One series' value from an instance's /prometheus, or "absent". */
    static String metric(int port, String name) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /prometheus HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    return line.substring(line.lastIndexOf(' ') + 1).strip();
                }
            }
        }
        return "absent";
    }
}
