import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Load and fault harness for the §8 traffic limits: reliability goals G6 (rate limits accurate both ways), G7
 * (concurrency slots exact, never leaked), G9 (Redis outage follows the documented policy) and G16 (playground and
 * anti-abuse buckets). bench/limits.sh starts a private Redis, a fresh database and two gateway instances sharing
 * both, then runs this with the jar on the class path; this program creates the accounts (the operator CLI, run in
 * this process) and keys (the HTTP control plane), sends the traffic and prints a Markdown table of what it measured
 * with PASS/FAIL per check. Every request is one raw HTTP/1.1 exchange (Connection: close) from a loopback source
 * address bound with {@link Socket#bind} (127.0.0.0/8 only), alternating between the two instances, so that an
 * abort is a plain socket close and the source IP is whatever the scenario needs. Exits 1 if a check failed.
 *
 * <p>Admission times: the gateway decides a request somewhere between the moment the client finished sending it and
 * the moment the client read the answer's head. Window counts are reported three ways: by send time, by arrival time
 * of the head, and "certain" — requests whose whole [sent, arrived] interval lies inside the window, so that more
 * than the limit of them proves the gateway admitted more than the limit in that window. PASS/FAIL uses the certain
 * count (the only one that cannot flag a correct limiter because of client-side jitter); the other two are shown.
 *
 * <p>Usage (bench/limits.sh does all of this): java -cp tollgate.jar bench/Limits.java --scenarios all --minutes 3
 * --ports P1,P2 --redis-port R --work DIR --logs LOG1,LOG2, with DATASOURCES_DEFAULT_URL (and _USERNAME) set to the
 * gateways' database
 */
public class Limits {

    static int[] ports;
    static int redisPort;
    static String jdbc;
    static Path work;
    static double minutes = 3;
    static int cycleCount = 10_000;
    static int outageSeconds = 30;
    static List<Path> logs = new ArrayList<>();
    static Connection db;
    static String redisPrefix = "";
    static final long START_NANOS = System.nanoTime();
    static final long START_MILLIS = System.currentTimeMillis();
    static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(null, r, "call", 256 * 1024);
        t.setDaemon(true);
        return t;
    });
    static final List<String[]> ROWS = new ArrayList<>();
    static boolean ok = true;
    static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([^\"]*)\"");
    static final Pattern MESSAGE = Pattern.compile("\"message\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    public static void main(String[] args) throws Exception {
        String scenarioArg = "all";
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--scenarios" -> scenarioArg = v;
                case "--minutes" -> minutes = Double.parseDouble(v);
                case "--ports" -> ports = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--redis-port" -> redisPort = Integer.parseInt(v);
                case "--work" -> work = Path.of(v);
                case "--logs" -> Arrays.stream(v.split(",")).map(Path::of).forEach(logs::add);
                case "--cycles" -> cycleCount = Integer.parseInt(v);
                case "--outage-seconds" -> outageSeconds = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        jdbc = System.getenv("DATASOURCES_DEFAULT_URL"); // also what the in-process operator CLI uses
        // As the jar's own main does for operator commands: logs on stderr, warnings only (set before any logger).
        System.setProperty("tollgate.log.target", "System.err");
        System.setProperty("tollgate.log.level", "WARN");
        Set<String> scenarios = scenarioArg.equals("all") ? new LinkedHashSet<>(List.of("g6", "g7", "g9", "g16"))
                : Set.of(scenarioArg);
        Class.forName("org.postgresql.Driver"); // from the gateway's jar on the class path
        db = DriverManager.getConnection(jdbc, "postgres", "");

        log("creating accounts (operator CLI in this process) and keys (HTTP control plane)");
        Subjects s = new Subjects(scenarios);
        log("warming both instances up (JIT) with traffic on subjects of their own");
        warmUp(s);
        redisPrefix = discoverPrefix();
        row("setup", "Redis key prefix in use (documented default `tollgate:`)", "`" + redisPrefix + "`",
                "informational", redisPrefix.equals("tollgate:") ? "ok" : "DEFECT");

        if (scenarios.contains("g6")) {
            g6(s);
        }
        if (scenarios.contains("g7")) {
            g7(s);
        }
        if (scenarios.contains("g9")) {
            g9(s);
        }
        if (scenarios.contains("g16")) {
            g16(s);
        }
        printTable();
        System.out.printf("%nTotal run time of the scenarios (after the instances were up): %.1f min%n",
                (System.nanoTime() - START_NANOS) / 60e9);
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    // =============================================================================================================
    // Subjects: accounts, keys and source addresses of every scenario, none shared between scenarios.

    record Account(String email, String id, String managementKey) {
    }

    record Key(String secret, String id, Account account) {
    }

    static final class Subjects {
        final Account warm;
        final List<Key> warmKeys = new ArrayList<>();
        // G6, per phase (0: 2x, 1: 0.9x): (a) one key; (b) one account, 20 keys; (c) 20 accounts, one key each.
        final Key[] g6a = new Key[2];
        final Account[] g6bAccount = new Account[2];
        final List<List<Key>> g6b = new ArrayList<>();
        final List<List<Key>> g6c = new ArrayList<>();
        Key g7key;
        Account g7account;
        final List<Key> g7accountKeys = new ArrayList<>();
        final List<Key> g7cycleKeys = new ArrayList<>();
        Key g9key;
        Key g16keyIps;
        final List<Key> g16ipKeys = new ArrayList<>();
        Key g16identical;
        Key g16control;

        Subjects(Set<String> scenarios) throws Exception {
            warm = account("warm");
            for (int i = 0; i < 10; i++) {
                warmKeys.add(key(warm, "warm-" + i));
            }
            if (scenarios.contains("g6")) {
                Account a = account("g6a");
                List<Account> c = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    c.add(account("g6c-" + i));
                }
                for (int phase = 0; phase < 2; phase++) {
                    g6a[phase] = key(a, "g6a-" + phase);
                    g6bAccount[phase] = account("g6b-" + phase);
                    List<Key> b = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        b.add(key(g6bAccount[phase], "g6b-" + phase + "-" + i));
                    }
                    g6b.add(b);
                    List<Key> cs = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        cs.add(key(c.get(i), "g6c-" + phase + "-" + i));
                    }
                    g6c.add(cs);
                }
            }
            if (scenarios.contains("g7")) {
                g7key = key(account("g7key"), "g7-key");
                g7account = account("g7account");
                for (int i = 0; i < 10; i++) {
                    g7accountKeys.add(key(g7account, "g7-account-" + i));
                }
                for (int a = 0; a < 5; a++) {
                    Account cycles = account("g7cycles-" + a);
                    for (int i = 0; i < 8; i++) {
                        g7cycleKeys.add(key(cycles, "g7-cycle-" + a + "-" + i));
                    }
                }
            }
            if (scenarios.contains("g9")) {
                g9key = key(account("g9"), "g9");
            }
            if (scenarios.contains("g16")) {
                g16keyIps = key(account("g16c-key"), "g16-key-ips");
                Account many = account("g16c-ip");
                for (int i = 0; i < 201; i++) {
                    g16ipKeys.add(key(many, "g16-ip-" + i));
                }
                Account d = account("g16d");
                g16identical = key(d, "g16-identical");
                g16control = key(d, "g16-control");
            }
        }
    }

    static Account account(String tag) {
        String email = tag + "-" + Long.toString(System.nanoTime(), 36) + "@limits.example.test";
        String id = admin("account", "create", "--email", email, "--verified", "--credit", "1000");
        String gpm = admin("management-key", "create", "--email", email, "--name", "limits");
        return new Account(email, id, gpm);
    }

    /** The operator CLI, run in this process (the same code as {@code java -jar tollgate.jar admin …}). */
    static synchronized String admin(String... args) {
        picocli.CommandLine cli = new picocli.CommandLine(new dev.tollgate.bootstrap.cli.AdminCommand());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        if (exit != 0) {
            throw new IllegalStateException("admin " + String.join(" ", args) + " failed: " + err);
        }
        return out.toString().strip();
    }

    static final Pattern NEW_KEY = Pattern.compile("\"key\"\\s*:\\s*\"(gp-[A-Za-z0-9]+)\"");
    static final Pattern HASH = Pattern.compile("\"hash\"\\s*:\\s*\"([0-9a-f]{64})\"");

    static Key key(Account account, String name) throws Exception {
        Call c = new Call(0, null, "/api/v1/keys", null, null, "{\"name\":\"" + name + "\"}");
        c.extraHeader = "Authorization: Bearer " + account.managementKey() + "\r\n";
        exchange(c);
        Matcher k = NEW_KEY.matcher(c.body);
        Matcher h = HASH.matcher(c.body);
        if (c.status != 201 || !k.find() || !h.find()) {
            throw new IllegalStateException("key creation failed: " + c.status + " " + c.body + " " + c.error);
        }
        try (PreparedStatement q = db.prepareStatement("SELECT id FROM api_key WHERE key_hash = ?")) {
            q.setString(1, h.group(1));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return new Key(k.group(1), rs.getString(1), account);
            }
        }
    }

    // =============================================================================================================
    // One HTTP exchange.

    enum Mode { READ, HOLD, ABORT, TIMEOUT }

    static final class Hold {
        volatile boolean release;
    }

    static final class Call {
        final int instance;
        final String ip;
        final String path;
        final String key;
        final String cookie;
        final String requestBody;
        String extraHeader = "";
        Mode mode = Mode.READ;
        long modeMillis;
        Hold hold;
        AtomicInteger open;
        String tag = "";
        int index;
        // what happened
        long intended;
        long sent;
        long head;
        long end;
        int status;
        String error;
        String body = "";
        long limit = -1;
        long remaining = -1;
        String scope;
        String retryAfter;
        String setCookie;
        boolean closedByClient;

        Call(int instance, String ip, String path, String key, String cookie, String requestBody) {
            this.instance = instance;
            this.ip = ip;
            this.path = path;
            this.key = key;
            this.cookie = cookie;
            this.requestBody = requestBody;
        }

        boolean admitted() {
            return status == 200;
        }

        String code() {
            Matcher m = CODE.matcher(body);
            return m.find() ? m.group(1) : null;
        }

        String message() {
            Matcher m = MESSAGE.matcher(body);
            return m.find() ? m.group(1) : "";
        }

        long headMillis() {
            return head == 0 ? -1 : (head - sent) / 1_000_000;
        }

        /** A 429 as §7.2 says: code rate_limit_exceeded, an integer Retry-After of at least 1 s, a scope header. */
        boolean wellFormed429() {
            return status == 429 && "rate_limit_exceeded".equals(code()) && retryAfter != null
                    && retryAfter.matches("[1-9][0-9]*") && scope != null && body.contains("\"rate_limit_error\"");
        }
    }

    static Call chat(int instance, String ip, Key key, String model, boolean stream, int maxTokens, String prompt) {
        return new Call(instance, ip, "/v1/chat/completions", key.secret(), null, body(model, stream, maxTokens,
                prompt));
    }

    static Call playground(int instance, String ip, String cookie, String model, boolean stream, int maxTokens,
            String prompt) {
        return new Call(instance, ip, "/v1/public/chat/completions", null, cookie, body(model, stream, maxTokens,
                prompt));
    }

    static String body(String model, boolean stream, int maxTokens, String prompt) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
    }

    static Call exchange(Call c) {
        boolean opened = false;
        Socket socket = new Socket();
        try {
            if (c.ip != null) {
                socket.bind(new InetSocketAddress(c.ip, 0));
            }
            socket.connect(new InetSocketAddress("127.0.0.1", ports[c.instance]), 5000);
            socket.setTcpNoDelay(true);
            byte[] payload = c.requestBody.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + c.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + payload.length + "\r\nConnection: close\r\n"
                    + (c.key != null ? "Authorization: Bearer " + c.key + "\r\n" : "")
                    + (c.cookie != null ? "Cookie: tollgate_playground=" + c.cookie + "\r\n" : "")
                    + c.extraHeader + "\r\n";
            byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
            byte[] all = Arrays.copyOf(headBytes, headBytes.length + payload.length);
            System.arraycopy(payload, 0, all, headBytes.length, payload.length);
            OutputStream out = socket.getOutputStream();
            c.sent = System.nanoTime();
            out.write(all);
            out.flush();
            long deadline = switch (c.mode) {
                case ABORT, TIMEOUT -> c.sent + TimeUnit.MILLISECONDS.toNanos(c.modeMillis);
                default -> c.sent + TimeUnit.SECONDS.toNanos(c.mode == Mode.HOLD ? 600 : 120);
            };
            boolean polling = c.mode != Mode.READ;
            socket.setSoTimeout(polling ? 20 : 120_000);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int headerEnd = -1;
            while (true) {
                if (c.mode == Mode.HOLD && c.hold.release || System.nanoTime() >= deadline) {
                    c.closedByClient = true;
                    if (c.mode != Mode.TIMEOUT) {
                        socket.setSoLinger(true, 0); // an abort: the client vanishes (RST)
                    }
                    break;
                }
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (n < 0) {
                    break;
                }
                if (headerEnd < 0 || received.size() < 65536) {
                    received.write(buffer, 0, Math.min(n, 65536));
                }
                if (headerEnd < 0) {
                    byte[] sofar = received.toByteArray();
                    headerEnd = indexOf(sofar, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    if (headerEnd >= 0) {
                        c.head = System.nanoTime();
                        parseHead(c, new String(sofar, 0, headerEnd, StandardCharsets.ISO_8859_1));
                        if (c.status == 200 && c.open != null) {
                            c.open.incrementAndGet();
                            opened = true;
                        }
                    }
                }
            }
            if (headerEnd >= 0) {
                byte[] bytes = received.toByteArray();
                c.body = new String(bytes, headerEnd + 4, bytes.length - headerEnd - 4, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            c.error = e.getClass().getSimpleName() + ": " + e.getMessage();
        } finally {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            c.end = System.nanoTime();
            if (opened) {
                c.open.decrementAndGet();
            }
        }
        return c;
    }

    static void parseHead(Call c, String head) {
        String[] lines = head.split("\r\n");
        c.status = Integer.parseInt(lines[0].substring(9, 12));
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            switch (name) {
                case "x-ratelimit-limit-requests" -> c.limit = Long.parseLong(value);
                case "x-ratelimit-remaining-requests" -> c.remaining = Long.parseLong(value);
                case "x-ratelimit-scope-requests" -> c.scope = value;
                case "retry-after" -> c.retryAfter = value;
                case "set-cookie" -> {
                    if (value.startsWith("tollgate_playground=")) {
                        c.setCookie = value.substring(20, value.indexOf(';') < 0 ? value.length() : value.indexOf(';'));
                    }
                }
                default -> {
                }
            }
        }
    }

    static int indexOf(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static String get(int port, String path) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(5000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    static final Pattern IN_FLIGHT = Pattern.compile("(?m)^tollgate_requests_in_flight(?:\\{[^}]*\\})? (\\S+)$");

    /** tollgate_requests_in_flight of each instance (-1 when it could not be read). */
    static long[] inFlightGauges() {
        long[] values = new long[ports.length];
        for (int i = 0; i < ports.length; i++) {
            Matcher m = IN_FLIGHT.matcher(get(ports[i], "/prometheus"));
            values[i] = m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
        }
        return values;
    }

    static long inFlightSum() {
        long sum = 0;
        for (long v : inFlightGauges()) {
            if (v < 0) {
                return -1;
            }
            sum += v;
        }
        return sum;
    }

    // =============================================================================================================
    // Open-loop load: requests go out on a fixed schedule whatever the answers, each on a thread of its own.

    static final class Load {
        final String name;
        final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger pending = new AtomicInteger();
        final Thread scheduler;
        volatile boolean stop;
        volatile long startNanos;

        Load(String name, double perSecond, long count, IntFunction<Call> make) {
            this.name = name;
            long period = (long) (1e9 / perSecond);
            scheduler = new Thread(() -> {
                startNanos = System.nanoTime();
                for (int i = 0; i < count && !stop; i++) {
                    long target = startNanos + i * period;
                    sleepUntil(target);
                    Call c = make.apply(i);
                    c.index = i;
                    c.intended = target;
                    calls.add(c);
                    pending.incrementAndGet();
                    POOL.execute(() -> {
                        try {
                            exchange(c);
                        } finally {
                            pending.decrementAndGet();
                        }
                    });
                }
            }, "schedule-" + name);
            scheduler.start();
        }

        static Load run(String name, double perSecond, double seconds, IntFunction<Call> make) {
            return new Load(name, perSecond, Math.round(perSecond * seconds), make);
        }

        List<Call> await() throws InterruptedException {
            scheduler.join();
            while (pending.get() > 0) {
                Thread.sleep(20);
            }
            synchronized (calls) {
                return new ArrayList<>(calls);
            }
        }

        /** The largest lag of a send behind its schedule (ms): shows whether the generator kept the schedule. */
        static long maxLagMillis(List<Call> calls) {
            return calls.stream().filter(c -> c.sent > 0).mapToLong(c -> (c.sent - c.intended) / 1_000_000).max()
                    .orElse(0);
        }
    }

    static void sleepUntil(long nanos) {
        long wait;
        while ((wait = nanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    /** Runs the calls {@code spacingMillis} apart, each on its own thread; returns them when all have ended. */
    static List<Call> spaced(List<Call> calls, long spacingMillis) throws InterruptedException {
        AtomicInteger pending = new AtomicInteger(calls.size());
        long start = System.nanoTime();
        for (int i = 0; i < calls.size(); i++) {
            Call c = calls.get(i);
            sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(i * spacingMillis));
            c.intended = System.nanoTime();
            POOL.execute(() -> {
                try {
                    exchange(c);
                } finally {
                    pending.decrementAndGet();
                }
            });
        }
        while (pending.get() > 0) {
            Thread.sleep(10);
        }
        return calls;
    }

    // =============================================================================================================
    // Sliding windows over admissions.

    /** Most times in any window (t − w, t]. */
    static int maxIn(long[] times, long window) {
        long[] t = times.clone();
        Arrays.sort(t);
        int best = 0;
        for (int i = 0, j = 0; i < t.length; i++) {
            while (t[j] <= t[i] - window) {
                j++;
            }
            best = Math.max(best, i - j + 1);
        }
        return best;
    }

    /**
     * Most requests whose whole [sent, head] interval lies in one window of length w − 1 ms: that many were
     * certainly admitted within one window of the gateway's millisecond clock (it stamps admissions in whole ms).
     */
    static int maxCertain(List<Call> admitted, long window) {
        long w = window - TimeUnit.MILLISECONDS.toNanos(1);
        List<Call> byHead = new ArrayList<>(admitted);
        byHead.sort(Comparator.comparingLong(c -> c.head));
        int best = 0;
        int from = 0;
        for (int j = 0; j < byHead.size(); j++) {
            long t = byHead.get(j).head;
            while (byHead.get(from).head <= t - w) {
                from++;
            }
            int count = 0;
            for (int i = from; i <= j; i++) {
                if (byHead.get(i).sent > t - w) {
                    count++;
                }
            }
            best = Math.max(best, count);
        }
        return best;
    }

    record Windows(int send, int arrival, int certain) {
        String text() {
            return "send " + send + " / arrival " + arrival + " / certain " + certain;
        }
    }

    static Windows windows(List<Call> admitted, long windowNanos) {
        return new Windows(maxIn(admitted.stream().mapToLong(c -> c.sent).toArray(), windowNanos),
                maxIn(admitted.stream().mapToLong(c -> c.head).toArray(), windowNanos),
                maxCertain(admitted, windowNanos));
    }

    static final long MINUTE = TimeUnit.SECONDS.toNanos(60);
    static final long TEN_S = TimeUnit.SECONDS.toNanos(10);
    static final long HOUR = TimeUnit.HOURS.toNanos(1);

    static List<Call> admitted(List<Call> calls) {
        return calls.stream().filter(Call::admitted).toList();
    }

    static String statuses(List<Call> calls) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Call c : calls) {
            counts.merge(c.status == 0 ? (c.closedByClient ? "closed-by-client" : "no-answer") : Integer.toString(
                    c.status), 1, Integer::sum);
        }
        return counts.toString();
    }

    static String scopes429(List<Call> calls) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Call c : calls) {
            if (c.status == 429) {
                counts.merge(String.valueOf(c.scope), 1, Integer::sum);
            }
        }
        return counts.toString();
    }

    static final String[][] WHO = {{"this key from this source IP", "key_ip"}, {"this key, source IP and model",
        "key_ip_model"}, {"this source IP on the playground", "playground_ip"}, {"this key", "key"},
        {"this account", "account"}, {"this source IP", "ip"}, {"this playground user", "principal"},
        {"the public playground", "playground"}};

    /**
     * Why a 429 was refused, from its message (which names the refusing bucket): e.g. {@code requests/account},
     * {@code cooldown/account}, {@code concurrency/key}, {@code distinct/ip}, {@code behavioural/key_ip_model}. The
     * {@code x-ratelimit-scope-requests} header names the request bucket with the least left, which on a
     * cooldown, concurrency or distinct refusal need not be the one that refused (docs/api.md).
     */
    static String reason(Call c) {
        String m = c.message();
        String kind = m.startsWith("Rate limit exceeded") ? "requests" : m.startsWith("Too many requests in flight")
                ? "concurrency" : m.startsWith("Too many distinct") ? "distinct" : m.startsWith("Token budget")
                ? "tokens" : m.startsWith("Too many near-identical") ? "behavioural" : m.contains("requests are paused")
                ? "cooldown" : "other";
        String who = "?";
        int best = Integer.MAX_VALUE;
        for (String[] w : WHO) {
            int at = m.indexOf(w[0]);
            if (at >= 0 && at < best) {
                best = at;
                who = w[1];
            }
        }
        return kind + "/" + who;
    }

    static String reasons429(List<Call> calls) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Call c : calls) {
            if (c.status == 429) {
                counts.merge(reason(c), 1, Integer::sum);
            }
        }
        return counts.toString();
    }

    static List<Call> failures(List<Call> calls) {
        return calls.stream().filter(c -> c.status != 200 && c.status != 429 && !c.closedByClient).toList();
    }

    static long percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p / 100 * sorted.size()) - 1));
    }

    // =============================================================================================================
    // Prompts: every one differs from the others in a word (digits and punctuation do not count), so that the
    // behavioural cooldown never sees near-identical prompts unless a scenario sends them on purpose.

    static final AtomicLong PROMPTS = new AtomicLong(1000);
    static final String[] WORDS = {"river", "lantern", "copper", "meadow", "orbit", "velvet", "harbor", "quartz",
        "falcon", "ember", "glacier", "saffron", "thimble", "walnut", "zephyr", "cobalt", "juniper", "marble",
        "nectar", "pebble", "quiver", "rustle", "tundra", "umber", "willow", "yonder", "acorn", "bramble"};

    static String prompt() {
        long n = PROMPTS.incrementAndGet();
        StringBuilder unique = new StringBuilder();
        do {
            unique.append((char) ('a' + n % 26));
            n /= 26;
        } while (n > 0);
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return "please describe " + unique + " with " + WORDS[r.nextInt(WORDS.length)] + " and "
                + WORDS[r.nextInt(WORDS.length)];
    }

    // =============================================================================================================
    // Sampling every 100 ms: client-side open admitted streams, the gauges of both instances, a Redis figure.

    static final class Sampler implements AutoCloseable {
        final List<long[]> samples = Collections.synchronizedList(new ArrayList<>());
        final Thread thread;
        volatile boolean stop;

        /** Columns: 0 time, 1 client-seen open admitted streams, 2 gauges summed, 3… the Redis figures. */
        Sampler(AtomicInteger client, LongSupplier... redis) {
            thread = new Thread(() -> {
                long next = System.nanoTime();
                while (!stop) {
                    long t = System.nanoTime();
                    long[] sample = new long[3 + redis.length];
                    sample[0] = t;
                    sample[1] = client == null ? -1 : client.get();
                    sample[2] = inFlightSum();
                    for (int i = 0; i < redis.length; i++) {
                        sample[3 + i] = redis[i].getAsLong();
                    }
                    samples.add(sample);
                    next += TimeUnit.MILLISECONDS.toNanos(100);
                    sleepUntil(Math.max(next, System.nanoTime()));
                }
            }, "sampler");
            thread.setDaemon(true);
            thread.start();
        }

        long max(int column) {
            synchronized (samples) {
                return samples.stream().mapToLong(s -> s[column]).max().orElse(-1);
            }
        }

        int count() {
            return samples.size();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    /** After the last client exit: how long until both gauges read 0 (ms; -1 if not within 10 s). */
    static long gaugesZeroAfter(long lastExit) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            long t = System.nanoTime();
            if (inFlightSum() == 0) {
                return Math.max(0, (t - lastExit) / 1_000_000);
            }
            Thread.sleep(20);
        }
        return -1;
    }

    /**
     * Slots left in Redis after every request ended: watches them (up to 40 s) to tell a slow release (the member
     * goes before its lease runs out) from a lost one (it stays until its lease expiry, never renewed) and from a
     * leaked lease that is still renewed (its expiry moves on).
     */
    static String followLeftovers(Redis redis) throws InterruptedException {
        List<String[]> first = redis.slotMembers();
        if (first.isEmpty()) {
            return "";
        }
        long seenAt = System.currentTimeMillis();
        Map<String, String[]> pending = new HashMap<>();
        for (String[] m : first) {
            pending.put(m[0] + " " + m[1], m);
        }
        long deadline = seenAt + 40_000;
        Map<String, Long> lastScore = new HashMap<>();
        int beforeExpiry = 0;
        int afterExpiry = 0;
        List<String> examples = new ArrayList<>();
        while (!pending.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(250);
            Map<String, String> now = new HashMap<>();
            for (String[] m : redis.slotMembers()) {
                now.put(m[0] + " " + m[1], m[2]);
            }
            long t = System.currentTimeMillis();
            for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                String score = now.get(e.getKey());
                long expiry = Long.parseLong(e.getValue()[2]);
                if (score == null) {
                    if (t < expiry) {
                        beforeExpiry++;
                    } else {
                        afterExpiry++;
                    }
                    if (examples.size() < 3) {
                        examples.add(e.getKey() + " gone " + (t - seenAt) + " ms after it was seen, " + (t - expiry)
                                + " ms after its lease expiry");
                    }
                    it.remove();
                } else {
                    lastScore.put(e.getKey(), Long.parseLong(score));
                }
            }
        }
        long renewed = pending.entrySet().stream().filter(e -> lastScore.getOrDefault(e.getKey(), 0L)
                > Long.parseLong(e.getValue()[2])).count();
        StringBuilder b = new StringBuilder(first.size() + " slots: " + beforeExpiry + " released before their lease "
                + "expiry (late release), " + afterExpiry + " gone only after it (never renewed nor released), "
                + pending.size() + " still there after 40 s (" + renewed + " of them renewed); e.g. "
                + String.join("; ", examples));
        return b.toString().trim();
    }

    // =============================================================================================================
    // A small RESP client for the private Redis (read-only looks, and the G9 shutdown).

    static final class Redis implements Closeable {
        private Socket socket;
        private InputStream in;
        private OutputStream out;

        synchronized Object call(String... args) throws IOException {
            if (socket == null) {
                socket = new Socket();
                socket.connect(new InetSocketAddress("127.0.0.1", redisPort), 1000);
                socket.setSoTimeout(2000);
                in = new java.io.BufferedInputStream(socket.getInputStream());
                out = socket.getOutputStream();
            }
            try {
                StringBuilder b = new StringBuilder("*" + args.length + "\r\n");
                for (String a : args) {
                    b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a)
                            .append("\r\n");
                }
                out.write(b.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                return read();
            } catch (IOException e) {
                close();
                throw e;
            }
        }

        private Object read() throws IOException {
            int type = in.read();
            if (type < 0) {
                throw new IOException("Redis closed the connection");
            }
            String line = line();
            switch (type) {
                case '+':
                    return line;
                case '-':
                    throw new IOException("Redis error: " + line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int n = Integer.parseInt(line);
                    if (n < 0) {
                        return null;
                    }
                    byte[] data = in.readNBytes(n + 2);
                    return new String(data, 0, n, StandardCharsets.UTF_8);
                }
                case '*': {
                    int n = Integer.parseInt(line);
                    List<Object> items = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        items.add(read());
                    }
                    return items;
                }
                default:
                    throw new IOException("unexpected RESP type " + (char) type);
            }
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                b.append((char) c);
            }
            in.read();
            return b.toString();
        }

        long number(String... args) {
            try {
                Object r = call(args);
                return r instanceof Long l ? l : -1;
            } catch (IOException e) {
                return -1;
            }
        }

        @SuppressWarnings("unchecked")
        List<String> scan(String pattern) throws IOException {
            List<String> keys = new ArrayList<>();
            String cursor = "0";
            do {
                List<Object> reply = (List<Object>) call("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
                cursor = (String) reply.get(0);
                for (Object k : (List<Object>) reply.get(1)) {
                    keys.add((String) k);
                }
            } while (!cursor.equals("0"));
            return keys;
        }

        /** The largest ZCARD among these keys; -1 if Redis failed. */
        long maxZcard(List<String> keys) {
            long max = 0;
            for (String k : keys) {
                long n = number("ZCARD", k);
                if (n < 0) {
                    return -1;
                }
                max = Math.max(max, n);
            }
            return max;
        }

        /** Members of every concurrency-slot set (ZCARD of each *inflight:* key), summed; -1 if Redis failed. */
        long inFlightSlots() {
            try {
                long sum = 0;
                for (String k : scan("*inflight:*")) {
                    sum += (Long) call("ZCARD", k);
                }
                return sum;
            } catch (IOException e) {
                return -1;
            }
        }

        /** Every slot member: key, member and lease expiry (epoch ms); empty if Redis failed. */
        @SuppressWarnings("unchecked")
        List<String[]> slotMembers() {
            List<String[]> members = new ArrayList<>();
            try {
                for (String k : scan("*inflight:*")) {
                    List<Object> z = (List<Object>) call("ZRANGE", k, "0", "-1", "WITHSCORES");
                    for (int i = 0; i + 1 < z.size(); i += 2) {
                        members.add(new String[] {k, (String) z.get(i), (String) z.get(i + 1)});
                    }
                }
            } catch (IOException e) {
                // reported as none
            }
            return members;
        }

        @Override
        public synchronized void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // gone anyway
                }
                socket = null;
            }
        }
    }

    static String discoverPrefix() {
        try (Redis r = new Redis()) {
            List<String> keys = r.scan("*account:rpm:*");
            if (keys.isEmpty()) {
                return "?";
            }
            String k = keys.get(0);
            return k.substring(0, k.indexOf("account:rpm:"));
        } catch (IOException e) {
            return "?";
        }
    }

    // =============================================================================================================
    // Warm-up: a freshly started JVM spends its first minute compiling; none of these subjects is used again.

    static void warmUp(Subjects s) throws Exception {
        List<Load> loads = new ArrayList<>();
        loads.add(Load.run("warm", 60, 25, i -> {
            Key k = s.warmKeys.get(i % 9);
            String ip = "127.200.0." + (1 + i % 10);
            return i % 3 == 0 ? chat(i % 2, ip, k, "bench/cycle", true, 16, prompt())
                    : chat(i % 2, ip, k, "bench/instant", false, 16, prompt());
        }));
        // refusals: one key far over its burst limit
        loads.add(Load.run("warm-429", 100, 4, i -> chat(i % 2, "127.200.1.1", s.warmKeys.get(9), "bench/instant",
                false, 16, prompt())));
        loads.add(Load.run("warm-playground", 10, 20, i -> playground(i % 2, "127.200.2." + (1 + i % 40), null,
                "bench/instant", false, 16, prompt())));
        for (Load l : loads) {
            List<Call> calls = l.await();
            log("  warm-up " + l.name + ": " + statuses(calls));
        }
    }

    // =============================================================================================================
    // G6: open loop at 2x each limit, then 0.9x, on three sets of subjects at once.

    static void g6(Subjects s) throws Exception {
        double seconds = minutes * 60;
        String[] phaseName = {"2x", "0.9x"};
        double[] factor = {2.0, 0.9};
        for (int phase = 0; phase < 2; phase++) {
            int p = phase;
            double f = factor[phase];
            String net = phase == 0 ? "127.61." : "127.62.";
            log(String.format("G6 %s: %.0f s at %.0f / %.0f / %.0f req/s for (a) key, (b) account, (c) IP", phaseName[p],
                    seconds, 10 * f, 50 * f, 50 * f));
            Random random = new Random(66 + phase);
            int[] bKey = new int[(int) Math.ceil(50 * f * seconds) + 10];
            int[] bIp = new int[bKey.length];
            for (int i = 0; i < bKey.length; i++) {
                bKey[i] = random.nextInt(20);
                bIp[i] = random.nextInt(4);
            }
            long fromWall = System.currentTimeMillis();
            Load a = Load.run("G6a-" + phaseName[p], 10 * f, seconds, i -> chat(i % 2, net + "0.1", s.g6a[p],
                    "bench/instant", false, 16, prompt()));
            Load b = Load.run("G6b-" + phaseName[p], 50 * f, seconds, i -> chat(i % 2, net + "1." + (1 + bIp[i]),
                    s.g6b.get(p).get(bKey[i]), "bench/instant", false, 16, prompt()));
            Load c = Load.run("G6c-" + phaseName[p], 50 * f, seconds, i -> chat(i % 2, net + "2.1",
                    s.g6c.get(p).get((i / 2) % 20), "bench/instant", false, 16, prompt()));
            List<Call> ca = a.await();
            List<Call> cb = b.await();
            List<Call> cc = c.await();
            String when = " (" + phaseName[p] + ")";
            report6("G6a" + when, "key and key+IP: 1 key, 1 IP", ca, 600, 200, phase == 0);
            report6("G6b" + when, "account: 20 keys, 4 IPs", cb, 3000, 1000, phase == 0);
            report6("G6c" + when, "IP: 20 keys of 20 accounts", cc, 3000, 1000, phase == 0);
            row("G6" + when, "gateway logs during the phase (Redis trouble)", storeTrouble(fromWall,
                    System.currentTimeMillis()), "diagnostic", "");
        }
        row("G6", "limiter decision p50 / p99 (tollgate_traffic_decision_seconds, admitted, store redis)",
                decisionQuantiles(), "informational (G6: p99 ≤ 5 ms)", "");
    }

    static void report6(String goal, String subject, List<Call> calls, int perMinute, int burst, boolean over) {
        List<Call> admitted = admitted(calls);
        long refused = calls.stream().filter(c -> c.status == 429).count();
        row(goal, subject + ": offered / admitted / refused (other answers)", calls.size() + " / " + admitted.size()
                + " / " + refused + " " + statuses(calls) + "; max send lag " + Load.maxLagMillis(calls) + " ms",
                "informational", "");
        dump(goal, calls);
        if (over) {
            // A decision an instance took alone (Redis failed or timed out) reports its share of the limit:
            // the configured limits halved (2 instances).
            List<Call> local = calls.stream().filter(c -> c.limit == perMinute / 2 || c.limit == burst / 2
                    || c.limit == 300 || c.limit == 100).toList();
            row(goal, "answers decided by one instance alone (limit header = a limit ÷ 2): answers / admitted; "
                    + "first and last sent (s into the phase)", local.isEmpty() ? "0" : local.size() + " / "
                    + admitted(local).size() + "; " + String.format("%.1f – %.1f s", (local.get(0).sent
                    - calls.get(0).intended) / 1e9, (local.get(local.size() - 1).sent - calls.get(0).intended) / 1e9),
                    "diagnostic", "");
            Windows minute = windows(admitted, MINUTE);
            Windows ten = windows(admitted, TEN_S);
            check(goal, "max admitted in any 60 s window", minute.text(), "certain ≤ " + perMinute,
                    minute.certain() <= perMinute);
            check(goal, "max admitted in any 10 s window", ten.text(), "certain ≤ " + burst, ten.certain() <= burst);
            row(goal, "refusals by reason (message) / by x-ratelimit-scope-requests header", reasons429(calls) + " / "
                    + scopes429(calls), "informational", "");
        } else {
            double rate = calls.isEmpty() ? 0 : 100.0 * refused / calls.size();
            check(goal, "share of requests refused with 429 at 0.9x", String.format("%.3f %% (%d of %d)", rate,
                    refused, calls.size()), "≤ 0.1 %", refused * 1000 <= calls.size());
        }
        long malformed = calls.stream().filter(c -> c.status == 429 && !c.wellFormed429()).count();
        check(goal, "429s with code rate_limit_exceeded, integer Retry-After ≥ 1, scope header", (refused - malformed)
                + " of " + refused, "all", malformed == 0);
        List<Call> failed = failures(calls);
        check(goal, "answers other than 200/429 (5xx, connection errors)", failed.size() + firstError(failed), "0",
                failed.isEmpty());
    }

    /** Every call of a scenario as CSV in the work directory, for analysis after the run. */
    static void dump(String name, List<Call> calls) {
        StringBuilder b = new StringBuilder("index,instance,ip,sent_ms,head_ms,end_ms,status,limit,remaining,scope,"
                + "reason\n");
        for (Call c : calls) {
            b.append(c.index).append(',').append(c.instance).append(',').append(c.ip).append(',')
                    .append(ms(c.sent)).append(',').append(ms(c.head)).append(',').append(ms(c.end)).append(',')
                    .append(c.status).append(',').append(c.limit).append(',').append(c.remaining).append(',')
                    .append(c.scope).append(',').append(c.status == 429 ? reason(c) : "").append('\n');
        }
        try {
            Files.writeString(work.resolve("calls-" + name.replaceAll("[^A-Za-z0-9.]+", "_") + ".csv"), b);
        } catch (IOException e) {
            log("could not write the calls of " + name + ": " + e.getMessage());
        }
    }

    /** A nanoTime as ms since the run started (0 stays 0: did not happen). */
    static String ms(long nanos) {
        return nanos == 0 ? "" : String.format(Locale.ROOT, "%.3f", (nanos - START_NANOS) / 1e6);
    }

    static String firstError(List<Call> failed) {
        if (failed.isEmpty()) {
            return "";
        }
        Call c = failed.get(0);
        return " (first: status " + c.status + " " + (c.error != null ? c.error : c.body.substring(0,
                Math.min(120, c.body.length()))) + ")";
    }

    static final Pattern QUANTILE = Pattern.compile(
            "(?m)^tollgate_traffic_decision_seconds\\{outcome=\"admitted\",store=\"redis\",quantile=\"(0\\.5|0\\.99)\"\\} (\\S+)$");

    static String decisionQuantiles() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ports.length; i++) {
            Matcher m = QUANTILE.matcher(get(ports[i], "/prometheus"));
            Map<String, Double> q = new HashMap<>();
            while (m.find()) {
                q.put(m.group(1), Double.parseDouble(m.group(2)) * 1000);
            }
            b.append(String.format("instance %d: %.2f / %.2f ms; ", i + 1, q.getOrDefault("0.5", -1.0),
                    q.getOrDefault("0.99", -1.0)));
        }
        return b.toString().trim();
    }

    // =============================================================================================================
    // G7: held streams over a concurrency cap, then 10,000 cycles that end every way.

    static void g7(Subjects s) throws Exception {
        log("G7: 120 held streams on one key (cap 50)");
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            calls.add(chat(i % 2, "127.71.0.1", s.g7key, "bench/slow", true, 2000, prompt()));
        }
        holdPhase("G7 key", calls, 50, "key", "key:inflight:" + s.g7key.id());

        log("G7: 250 held streams on one account over 10 keys (cap 200)");
        calls = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            calls.add(chat(i % 2, "127.71.1.1", s.g7accountKeys.get(i % 10), "bench/slow", true, 2000, prompt()));
        }
        holdPhase("G7 account", calls, 200, "account", "account:inflight:" + s.g7account.id());

        log("G7: 5 held streams on one playground principal (cap 2)");
        Call first = exchange(playground(0, "127.71.2.1", null, "bench/instant", false, 16, prompt()));
        if (first.setCookie == null) {
            check("G7 playground", "principal cookie issued", "status " + first.status + ", no cookie", "cookie",
                    false);
        } else {
            String principal = first.setCookie.substring(0, first.setCookie.indexOf('.'));
            calls = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(playground(i % 2, "127.71.2.1", first.setCookie, "bench/slow", true, 1000, prompt()));
            }
            holdPhase("G7 playground", calls, 2, "principal", "principal:inflight:" + principal);
        }

        log("G7: 10,000 cycles at concurrency 50 ending in success, abort, upstream error or timeout");
        cycles(s, cycleCount, 50);
    }

    static void holdPhase(String goal, List<Call> calls, int cap, String scope, String redisKey) throws Exception {
        holdPhase(goal, calls, cap, scope, redisKey, 10, true);
    }

    /** Opens the streams {@code spacingMillis} apart, holds them until all are answered (+2 s), then aborts them. */
    static void holdPhase(String goal, List<Call> calls, int cap, String scope, String redisKey, long spacingMillis,
            boolean latencyGoal) throws Exception {
        Hold hold = new Hold();
        AtomicInteger open = new AtomicInteger();
        for (Call c : calls) {
            c.mode = Mode.HOLD;
            c.hold = hold;
            c.open = open;
        }
        AtomicInteger pending = new AtomicInteger(calls.size());
        long fromWall = System.currentTimeMillis();
        try (Redis redis = new Redis(); Sampler sampler = new Sampler(open, () -> redis.number("ZCARD",
                redisPrefix + redisKey))) {
            long start = System.nanoTime();
            for (int i = 0; i < calls.size(); i++) {
                Call c = calls.get(i);
                sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(spacingMillis * i));
                c.intended = System.nanoTime();
                POOL.execute(() -> {
                    try {
                        exchange(c);
                    } finally {
                        pending.decrementAndGet();
                    }
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && calls.stream().anyMatch(c -> c.head == 0 && c.end == 0)) {
                Thread.sleep(20);
            }
            Thread.sleep(2000); // keep them open and sampled a little longer
            hold.release = true;
            while (pending.get() > 0) {
                Thread.sleep(5);
            }
            long lastExit = calls.stream().mapToLong(c -> c.end).max().orElse(System.nanoTime());
            long zeroAfter = gaugesZeroAfter(lastExit);
            long slotsNow = redis.inFlightSlots();
            sampler.close();

            dump(goal, calls);
            long admitted = calls.stream().filter(Call::admitted).count();
            List<Call> refusedCalls = calls.stream().filter(c -> c.status == 429).toList();
            List<Long> refusalMillis = refusedCalls.stream().map(Call::headMillis).toList();
            long rightScope = refusedCalls.stream().filter(c -> reason(c).equals("concurrency/" + scope)
                    && c.wellFormed429()).count();
            row(goal, "streams offered / admitted / refused", calls.size() + " / " + admitted + " / "
                    + refusedCalls.size() + " " + statuses(calls), "informational", "");
            check(goal, "admitted exactly the cap", Long.toString(admitted), "= " + cap, admitted == cap);
            check(goal, "surplus refused with a well-formed 429, in-flight limit of scope " + scope, rightScope
                    + " of " + (calls.size() - admitted) + "; reasons " + reasons429(calls) + "; header scopes "
                    + scopes429(calls), "all", rightScope == calls.size() - admitted);
            String latency = percentile(refusalMillis, 50) + " / " + percentile(refusalMillis, 99) + " / "
                    + percentile(refusalMillis, 100) + " ms";
            if (latencyGoal) {
                check(goal, "time to the 429 (p50 / p99 / max)", latency, "p99 ≤ 50 ms", !refusalMillis.isEmpty()
                        && percentile(refusalMillis, 99) <= 50);
            } else {
                row(goal, "time to the 429 (p50 / p99 / max)", latency, "informational (G7's 50 ms is not a G16 "
                        + "criterion)", "");
            }
            check(goal, "max in flight at 100 ms sampling: client-seen open 200s / gauges summed / Redis slots",
                    sampler.max(1) + " / " + sampler.max(2) + " / " + sampler.max(3) + " (" + sampler.count()
                            + " samples)", "each ≤ " + cap,
                    sampler.max(1) <= cap && sampler.max(2) <= cap && sampler.max(3) <= cap);
            check(goal, "gauges back to 0 after the last client exit", zeroAfter < 0 ? "not within 10 s"
                    : zeroAfter + " ms", "≤ 1000 ms", zeroAfter >= 0 && zeroAfter <= 1000);
            check(goal, "live slots left in Redis (ZCARD of every *inflight:* key) at gauge zero", Long.toString(slotsNow),
                    "0", slotsNow == 0);
            if (slotsNow != 0) {
                row(goal, "what became of those slots", followLeftovers(redis), "diagnostic", "");
            }
            row(goal, "gateway logs during this phase (Redis trouble)", storeTrouble(fromWall,
                    System.currentTimeMillis()), "diagnostic", "");
        }
    }

    enum Ending { SUCCESS, SUCCESS_JSON, ABORT, ERROR_MID_STREAM, ERROR_BEFORE_FIRST_BYTE, TIMEOUT }

    static void cycles(Subjects s, int total, int concurrency) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger open = new AtomicInteger();
        ConcurrentLinkedQueue<Call> results = new ConcurrentLinkedQueue<>();
        Map<Call, Ending> endings = new java.util.concurrent.ConcurrentHashMap<>();
        // 35 % streams read to the end, 10 % JSON, 20 % aborts, 10 % mid-stream upstream errors, 5 % upstream
        // errors before the first byte (the gateway retries those for ~7 s), 20 % client timeouts
        Ending[] mix = {Ending.SUCCESS, Ending.SUCCESS, Ending.SUCCESS, Ending.SUCCESS, Ending.SUCCESS, Ending.SUCCESS,
            Ending.SUCCESS, Ending.SUCCESS_JSON, Ending.SUCCESS_JSON, Ending.ABORT, Ending.ABORT, Ending.ABORT,
            Ending.ABORT, Ending.ERROR_MID_STREAM, Ending.ERROR_MID_STREAM, Ending.ERROR_BEFORE_FIRST_BYTE,
            Ending.TIMEOUT, Ending.TIMEOUT, Ending.TIMEOUT, Ending.TIMEOUT};
        List<String> keySlots = s.g7cycleKeys.stream().map(k -> redisPrefix + "key:inflight:" + k.id()).toList();
        List<String> accountSlots = s.g7cycleKeys.stream().map(k -> redisPrefix + "account:inflight:"
                + k.account().id()).distinct().toList();
        long fromWall = System.currentTimeMillis();
        try (Redis redis = new Redis(); Sampler sampler = new Sampler(open, () -> redis.maxZcard(keySlots),
                () -> redis.maxZcard(accountSlots))) {
            long start = System.nanoTime();
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < concurrency; w++) {
                Thread t = new Thread(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    int i;
                    while ((i = next.getAndIncrement()) < total) {
                        Ending e = mix[r.nextInt(mix.length)];
                        Key k = s.g7cycleKeys.get(r.nextInt(s.g7cycleKeys.size()));
                        String ip = "127.71.3." + (1 + r.nextInt(10));
                        String model = switch (e) {
                            case ERROR_MID_STREAM -> "bench/fail-mid";
                            case ERROR_BEFORE_FIRST_BYTE -> "bench/fail-before";
                            default -> "bench/cycle";
                        };
                        Call c = chat(i % 2, ip, k, model, e != Ending.SUCCESS_JSON, 64, prompt());
                        c.open = open;
                        if (e == Ending.ABORT) {
                            c.mode = Mode.ABORT;
                            c.modeMillis = r.nextInt(400);
                        } else if (e == Ending.TIMEOUT) {
                            c.mode = Mode.TIMEOUT;
                            c.modeMillis = 50 + r.nextInt(300);
                        }
                        exchange(c);
                        results.add(c);
                        endings.put(c, e);
                    }
                }, "cycle-" + w);
                t.start();
                workers.add(t);
            }
            for (Thread t : workers) {
                t.join();
            }
            List<Call> calls = new ArrayList<>(results);
            dump("G7 cycles", calls);
            long lastExit = calls.stream().mapToLong(c -> c.end).max().orElse(System.nanoTime());
            double seconds = (lastExit - start) / 1e9;
            long zeroAfter = gaugesZeroAfter(lastExit);
            long slotsNow = redis.inFlightSlots();
            Thread.sleep(1000);
            long slotsLater = redis.inFlightSlots();
            sampler.close();
            Map<String, Integer> byEnding = new TreeMap<>();
            Map<String, List<Long>> durations = new TreeMap<>();
            for (Call c : calls) {
                Ending e = endings.get(c);
                String what = e + ":" + (c.status == 0 ? "closed-before-head" : Integer.toString(c.status));
                byEnding.merge(what, 1, Integer::sum);
                durations.computeIfAbsent(e.toString(), x -> new ArrayList<>()).add((c.end - c.sent) / 1_000_000);
            }
            StringBuilder p50 = new StringBuilder();
            durations.forEach((e, list) -> p50.append(e).append(' ').append(percentile(list, 50)).append(" ms; "));
            row("G7 cycles", "cycles / seconds / endings (client's plan:status)", calls.size() + String.format(
                    " in %.1f s; ", seconds) + byEnding + "; p50 duration: " + p50.toString().trim(), "informational",
                    "");
            long refused = calls.stream().filter(c -> c.status == 429).count();
            check("G7 cycles", "cycles refused by a limit (none is near its limit here)", refused + " "
                    + reasons429(calls), "0", refused == 0);
            long unexpected = calls.stream().filter(c -> c.status == 0 && !c.closedByClient).count();
            check("G7 cycles", "connection failures", unexpected + firstError(calls.stream().filter(c -> c.status == 0
                    && !c.closedByClient).toList()), "0", unexpected == 0);
            row("G7 cycles", "max in flight at 100 ms sampling: client-seen open 200s / gauges summed ("
                    + concurrency + " clients; a slot is released just after its client saw the end)", sampler.max(1)
                    + " / " + sampler.max(2) + " (" + sampler.count() + " samples)", "informational", "");
            check("G7 cycles", "max slots held in Redis by one key / by one account at 100 ms sampling",
                    sampler.max(3) + " / " + sampler.max(4), "≤ 50 / ≤ 200", sampler.max(3) >= 0
                    && sampler.max(3) <= 50 && sampler.max(4) >= 0 && sampler.max(4) <= 200);
            check("G7 cycles", "gauges back to 0 after the last client exit", zeroAfter < 0 ? "not within 10 s"
                    : zeroAfter + " ms", "≤ 1000 ms", zeroAfter >= 0 && zeroAfter <= 1000);
            check("G7 cycles", "live slots left in Redis (ZCARD of every *inflight:* key) at gauge zero / 1 s later",
                    slotsNow + " / " + slotsLater, "0", slotsNow == 0 && slotsLater == 0);
            if (slotsNow != 0 || slotsLater != 0) {
                row("G7 cycles", "what became of those slots", followLeftovers(redis), "diagnostic", "");
            }
            row("G7 cycles", "gateway logs during the cycles (Redis trouble)", storeTrouble(fromWall,
                    System.currentTimeMillis()), "diagnostic", "");
        }
    }

    // =============================================================================================================
    // G9: Redis stops for 30 s under (a)-style load, then comes back empty.

    static void g9(Subjects s) throws Exception {
        double rate = 40;
        String ip = "127.91.0.1";
        log("G9: one key from one IP at " + (int) rate + " req/s; Redis stops after 60 s for " + outageSeconds + " s");
        Load load = new Load("G9", rate, Long.MAX_VALUE, i -> chat(i % 2, ip, s.g9key, "bench/instant", false, 16,
                prompt()));
        Thread.sleep(60_000);
        long liveInstances = liveInstances();
        long tDown;
        try (Redis r = new Redis()) {
            tDown = System.nanoTime();
            try {
                r.call("SHUTDOWN", "NOSAVE");
            } catch (IOException e) {
                // the server closes the connection as it goes
            }
        }
        long downWall = System.currentTimeMillis();
        log("G9: Redis shut down (nosave); " + liveInstances + " live instances in the database");
        Thread.sleep(outageSeconds * 1000L);
        long upWall = System.currentTimeMillis();
        startRedis();
        long tUp = System.nanoTime();
        log("G9: Redis started again (empty)");
        // Run until both instances answer from the shared store again (+20 s), at most 120 s.
        long until = tUp + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until) {
            Thread.sleep(1000);
            List<Call> sofar;
            synchronized (load.calls) {
                sofar = new ArrayList<>(load.calls);
            }
            long[] rec = recovery(sofar, tUp);
            if (rec[0] >= 0 && rec[1] >= 0 && System.nanoTime() - tUp > TimeUnit.SECONDS.toNanos(20)
                    && System.nanoTime() - tUp - Math.max(rec[0], rec[1]) * 1_000_000 > TimeUnit.SECONDS.toNanos(20)) {
                break;
            }
        }
        load.stop = true;
        List<Call> calls = load.await();

        dump("G9", calls);
        // The documented cap: each instance alone against limit ÷ live instances (2): 300 per minute, 100 per 10 s.
        long cap60 = 600 / 2;
        long cap10 = 200 / 2;
        row("G9", "outage length; offered / admitted / refused, whole run", outageSeconds + " s; " + calls.size() + " / " + admitted(calls).size() + " / "
                + calls.stream().filter(c -> c.status == 429).count() + " " + statuses(calls), "informational", "");
        row("G9", "live instances counted in the database just before the outage", Long.toString(liveInstances),
                "informational (divisor of the local limits)", "");
        long[] rec = recovery(calls, tUp);
        for (int inst = 0; inst < 2; inst++) {
            int i = inst;
            List<Call> mine = calls.stream().filter(c -> c.instance == i).toList();
            List<Call> local = mine.stream().filter(c -> isLocal(c.limit)).toList();
            List<Call> outage = mine.stream().filter(c -> c.sent >= tDown && c.sent < tUp).toList();
            List<Call> localAdmitted = admitted(local);
            Windows w60 = windows(localAdmitted, MINUTE);
            Windows w10 = windows(localAdmitted, TEN_S);
            String who = "instance " + (i + 1);
            row("G9 " + who, "sent during the outage: offered / admitted; decided locally (limit header 300 or 100): "
                    + "answers / admitted", outage.size() + " / " + admitted(outage).size() + "; " + local.size()
                    + " / " + localAdmitted.size(), "informational", "");
            check("G9 " + who, "local admissions in any 60 s window", w60.text(), "certain ≤ " + cap60
                    + " (600 ÷ 2)", w60.certain() <= cap60);
            check("G9 " + who, "local admissions in any 10 s window", w10.text(), "certain ≤ " + cap10
                    + " (200 ÷ 2)", w10.certain() <= cap10);
            check("G9 " + who, "shared decisions again after Redis returned (first answer with the full limit after "
                    + "the last divided one)", rec[i] < 0 ? "never within the run" : rec[i] + " ms",
                    "≤ 5000 ms", rec[i] >= 0 && rec[i] <= 5000);
        }
        row("G9", "gateway log: shared store unreachable / answers again (ms after shutdown / after restart)",
                logEvents(downWall, upWall), "informational", "");
        List<Call> failed = calls.stream().filter(c -> c.status >= 500 || c.status == 0).toList();
        check("G9", "5xx answers or connection failures", failed.size() + firstError(failed), "0", failed.isEmpty());
        List<Long> firstSecond = calls.stream().filter(c -> c.sent >= tDown && c.sent < tDown + 1_000_000_000L)
                .map(Call::headMillis).toList();
        List<Long> before = calls.stream().filter(c -> c.sent >= tDown - 10_000_000_000L && c.sent < tDown)
                .map(Call::headMillis).toList();
        check("G9", "latency of requests sent in the first second of the outage (p50 / max; 10 s before: p50 / max)",
                percentile(firstSecond, 50) + " / " + percentile(firstSecond, 100) + " ms (" + firstSecond.size()
                        + " requests); " + percentile(before, 50) + " / " + percentile(before, 100) + " ms",
                "max ≤ 1000 ms (Redis timeout 250 ms)", !firstSecond.isEmpty() && percentile(firstSecond, 100) <= 1000);
        // Before the outage the limit is global; after both instances are back it is global again.
        List<Call> pre = admitted(calls.stream().filter(c -> c.sent < tDown).toList());
        Windows pre60 = windows(pre, MINUTE);
        Windows pre10 = windows(pre, TEN_S);
        check("G9", "before the outage: admitted (both instances) in any 60 s / 10 s window", pre60.text() + "; "
                + pre10.text(), "certain ≤ 600 / ≤ 200", pre60.certain() <= 600 && pre10.certain() <= 200);
        long recovered = tUp + Math.max(rec[0], rec[1]) * 1_000_000;
        if (rec[0] >= 0 && rec[1] >= 0) {
            List<Call> post = admitted(calls.stream().filter(c -> c.sent >= recovered).toList());
            Windows post10 = windows(post, TEN_S);
            check("G9", "after both recovered: admitted (both instances) in any 10 s window", post10.text(),
                    "certain ≤ 200 (global again)", post10.certain() <= 200);
        }
        List<Call> around = admitted(calls.stream().filter(c -> c.sent >= tDown - MINUTE).toList());
        row("G9", "all admissions in any 60 s window from 60 s before the outage to the end (what the instances "
                + "admitted alone is replayed into Redis when it returns; this Redis restarts empty, so what it had "
                + "admitted itself before the outage is forgotten)", windows(around, MINUTE).text(),
                "informational (limit 600)", "");
    }

    static boolean isLocal(long limit) {
        return limit == 300 || limit == 100;
    }

    /** Per instance: ms after tUp of its first shared answer (limit 600/200) after its last local one; -1 if none. */
    static long[] recovery(List<Call> calls, long tUp) {
        long[] result = {-1, -1};
        for (int i = 0; i < 2; i++) {
            int inst = i;
            List<Call> mine = calls.stream().filter(c -> c.instance == inst && c.head > 0 && c.sent >= tUp)
                    .sorted(Comparator.comparingLong(c -> c.sent)).toList();
            long lastLocal = -1;
            for (int j = 0; j < mine.size(); j++) {
                if (isLocal(mine.get(j).limit)) {
                    lastLocal = j;
                }
            }
            for (int j = (int) lastLocal + 1; j < mine.size(); j++) {
                long l = mine.get(j).limit;
                if (l == 600 || l == 200) {
                    result[i] = Math.max(0, (mine.get(j).sent - tUp) / 1_000_000);
                    break;
                }
            }
        }
        return result;
    }

    static final Pattern LOG_TIME = Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+)Z");

    static String logEvents(long downWall, long upWall) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < logs.size(); i++) {
            b.append("instance ").append(i + 1).append(": ");
            try {
                for (String line : Files.readAllLines(logs.get(i))) {
                    Matcher m = LOG_TIME.matcher(line);
                    if (!m.find()) {
                        continue;
                    }
                    long at = LocalDateTime.parse(m.group(1)).toInstant(ZoneOffset.UTC).toEpochMilli();
                    if (at < downWall - 1000) {
                        continue;
                    }
                    if (line.contains("rate-limit store is unreachable")) {
                        b.append("unreachable +").append(at - downWall).append(" ms; ");
                    } else if (line.contains("answers again")) {
                        b.append("answers again +").append(at - upWall).append(" ms; ");
                    }
                }
            } catch (IOException e) {
                b.append("log unreadable; ");
            }
        }
        return b.toString().trim();
    }

    /**
     * What the gateways logged about the shared store between two wall-clock times: how often an instance fell
     * back to its local share (a Redis command failed or timed out) and how often lease renewal failed.
     */
    static String storeTrouble(long fromWall, long toWall) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < logs.size(); i++) {
            int fallbacks = 0;
            int renewals = 0;
            String first = "";
            try {
                for (String line : Files.readAllLines(logs.get(i))) {
                    Matcher m = LOG_TIME.matcher(line);
                    if (!m.find()) {
                        continue;
                    }
                    long at = LocalDateTime.parse(m.group(1)).toInstant(ZoneOffset.UTC).toEpochMilli();
                    if (at < fromWall || at > toWall) {
                        continue;
                    }
                    if (line.contains("rate-limit store is unreachable")) {
                        fallbacks++;
                        if (first.isEmpty()) {
                            int cause = line.indexOf("did not answer: ");
                            String why = cause < 0 ? "?" : line.substring(cause + 16);
                            int end = why.indexOf(')');
                            first = " (first +" + (at - fromWall) + " ms: " + (end < 0 ? why : why.substring(0, end))
                                    + ")";
                        }
                    } else if (line.contains("Concurrency leases not renewed")) {
                        renewals++;
                    }
                }
            } catch (IOException e) {
                b.append("instance ").append(i + 1).append(": log unreadable; ");
                continue;
            }
            b.append("instance ").append(i + 1).append(": ").append(fallbacks).append(" fall-backs to local limits")
                    .append(first).append(", ").append(renewals).append(" failed lease renewals; ");
        }
        return b.toString().trim();
    }

    static long liveInstances() {
        try (PreparedStatement q = db.prepareStatement(
                "SELECT count(*) FROM gateway_instance WHERE alive_until >= now()"); ResultSet rs = q.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }

    static void startRedis() throws Exception {
        ProcessBuilder b = new ProcessBuilder("redis-server", "--port", Integer.toString(redisPort), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--pidfile",
                work.resolve("redis.pid").toString(), "--dir", work.toString(), "--logfile",
                work.resolve("redis-restarted.log").toString());
        b.redirectErrorStream(true).redirectOutput(work.resolve("redis-restarted.out").toFile());
        b.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Redis r = new Redis()) {
                if ("PONG".equals(r.call("PING"))) {
                    return;
                }
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException("Redis did not come back");
    }

    // =============================================================================================================
    // G16: playground and anti-abuse buckets.

    static void g16(Subjects s) throws Exception {
        double seconds = minutes * 60;
        log(String.format("G16: (a) 1,000 fresh principals from one IP over %.0f s, with (c) and (d) alongside",
                seconds));
        Load a = Load.run("G16a", 1000 / seconds, seconds, i -> playground(i % 2, "127.161.0.1", null,
                "bench/instant", false, 16, prompt()));
        Thread c = new Thread(() -> {
            try {
                g16c(s);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        c.start();
        // (d): 500 near-identical prompts on one key, and a control run of 500 varied prompts on another key
        Load identical = Load.run("G16d-identical", 8, 500 / 8.0, i -> chat(i % 2, "127.165.0.1", s.g16identical,
                "bench/instant", false, 16, "Tell me joke " + (i + 1)));
        Load control = Load.run("G16d-control", 8, 500 / 8.0, i -> chat(i % 2, "127.165.0.2", s.g16control,
                "bench/instant", false, 16, prompt()));
        List<Call> ci = identical.await();
        List<Call> cc = control.await();
        c.join();
        List<Call> ca = a.await();

        dump("G16a", ca);
        dump("G16d-identical", ci);
        dump("G16d-control", cc);
        List<Call> admittedA = admitted(ca);
        Windows w = windows(admittedA, MINUTE);
        row("G16a", "one IP, a fresh principal per request: offered / admitted / refused", ca.size() + " / "
                + admittedA.size() + " / " + ca.stream().filter(x -> x.status == 429).count() + " "
                + statuses(ca) + "; refusals by reason " + reasons429(ca), "informational", "");
        check("G16a", "admitted in any 60 s window", w.text(), "certain ≤ 20", w.certain() <= 20);
        check("G16a", "admitted in the run (" + String.format("%.0f", seconds)
                + " s, inside one hour window)", Integer.toString(admittedA.size()), "≤ 50", admittedA.size() <= 50);
        check("G16a", "answers other than 200/429", failures(ca).size() + firstError(failures(ca)), "0",
                failures(ca).isEmpty());

        int firstBehavioural = -1;
        for (int i = 0; i < ci.size(); i++) {
            if (ci.get(i).status == 429 && ci.get(i).message().contains("requests are paused")) {
                firstBehavioural = i;
                break;
            }
        }
        long behaviouralI = ci.stream().filter(x -> x.status == 429 && x.message().contains("near-identical")).count();
        int admittedBefore = firstBehavioural < 0 ? -1
                : (int) ci.subList(0, firstBehavioural).stream().filter(Call::admitted).count();
        row("G16d", "near-identical (\"Tell me joke N\", 8/s): offered / admitted / refused", ci.size() + " / "
                + admitted(ci).size() + " / " + ci.stream().filter(x -> x.status == 429).count() + " " + statuses(ci),
                "informational", "");
        check("G16d", "behavioural cooldown triggered (429s saying requests are paused for near-identical prompts)",
                behaviouralI + " refusals; first: "
                        + (firstBehavioural < 0 ? "none" : "\"" + ci.get(firstBehavioural).message() + "\""),
                "≥ 1", behaviouralI >= 1);
        check("G16d", "admitted before the first behavioural refusal", Integer.toString(admittedBefore),
                "= 50 (the threshold)", admittedBefore == 50);
        long behaviouralC = cc.stream().filter(x -> x.status == 429 && x.message().contains("near-identical")).count();
        check("G16d", "control, 500 varied prompts: behavioural refusals", behaviouralC + " of " + cc.size()
                + "; statuses " + statuses(cc), "< 0.1 %", behaviouralC * 1000 < cc.size());

        log("G16: (b) 600 source addresses at their own playground limit, slow streams");
        g16b();
    }

    static void g16c(Subjects s) throws Exception {
        // One key from 201 distinct IPs, 10 per second (well inside the key's rate limits).
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 201; i++) {
            calls.add(chat(i % 2, "127.163.0." + (i + 1), s.g16keyIps, "bench/instant", false, 16, prompt()));
        }
        calls.add(chat(0, "127.163.0.1", s.g16keyIps, "bench/instant", false, 16, prompt())); // a known IP again
        spaced(calls, 100);
        Call c200 = calls.get(199);
        Call c201 = calls.get(200);
        long okBefore = calls.subList(0, 200).stream().filter(Call::admitted).count();
        long ips;
        try (Redis r = new Redis()) {
            ips = r.number("ZCARD", redisPrefix + "key:ips:" + s.g16keyIps.id());
        }
        check("G16c", "one key from 201 IPs: IPs 1–200 admitted, the 200th admitted", okBefore + " of 200; 200th: "
                + c200.status, "200 of 200", okBefore == 200 && c200.status == 200);
        check("G16c", "the 201st IP refused: 429, distinct-IPs limit of scope key (header scope shown too)",
                c201.status + " " + reason(c201) + " (header " + c201.scope + ") \"" + c201.message() + "\"",
                "429 distinct/key", c201.status == 429 && reason(c201).equals("distinct/key"));
        row("G16c", "the 1st IP again after the refusal; Redis distinct set of the key (ZCARD)", calls.get(201).status
                + "; " + ips + " members", "informational (exact set ≤ 201 entries)", ips <= 201 ? "" : "over");

        // One IP using 201 distinct keys.
        calls = new ArrayList<>();
        for (int i = 0; i < 201; i++) {
            calls.add(chat(i % 2, "127.164.0.1", s.g16ipKeys.get(i), "bench/instant", false, 16, prompt()));
        }
        calls.add(chat(0, "127.164.0.1", s.g16ipKeys.get(0), "bench/instant", false, 16, prompt()));
        spaced(calls, 100);
        c200 = calls.get(199);
        c201 = calls.get(200);
        okBefore = calls.subList(0, 200).stream().filter(Call::admitted).count();
        long keys;
        try (Redis r = new Redis()) {
            keys = r.number("ZCARD", redisPrefix + "ip:keys:127.164.0.1");
        }
        check("G16c", "one IP with 201 keys: keys 1–200 admitted, the 200th admitted", okBefore + " of 200; 200th: "
                + c200.status, "200 of 200", okBefore == 200 && c200.status == 200);
        check("G16c", "the 201st key refused: 429, distinct-keys limit of scope ip (header scope shown too)",
                c201.status + " " + reason(c201) + " (header " + c201.scope + ") \"" + c201.message() + "\"",
                "429 distinct/ip", c201.status == 429 && reason(c201).equals("distinct/ip"));
        row("G16c", "the 1st key again after the refusal; Redis distinct set of the IP (ZCARD)", calls.get(201).status
                + "; " + keys + " members", "informational (exact set ≤ 201 entries)", keys <= 201 ? "" : "over");
    }

    static void g16b() throws Exception {
        int addresses = 600;
        String[] ips = new String[addresses];
        for (int i = 0; i < addresses; i++) {
            ips[i] = "127.162." + (i / 250) + "." + (1 + i % 250);
        }
        // Each address gets its browser cookie first (that request counts like any other).
        Load cookies = Load.run("G16b-cookies", 50, addresses / 50.0, i -> playground(i % 2, ips[i], null,
                "bench/instant", false, 16, prompt()));
        List<Call> cookieCalls = cookies.await();
        String[] cookie = new String[addresses];
        int withCookie = 0;
        for (Call c : cookieCalls) {
            cookie[c.index] = c.setCookie;
            if (c.setCookie != null) {
                withCookie++;
            }
        }
        row("G16b", "cookies issued to the 600 addresses", withCookie + " " + statuses(cookieCalls), "informational",
                "");

        // In flight: every principal opens its 2 streams (its own cap) at once, 1,200 offered against the
        // playground's 1,000; 30 s streams (60 tokens at 2 per second), held until all are answered.
        log("G16b: 1,200 playground streams offered at once (2 per principal) against 1,000 in flight");
        List<Call> held = new ArrayList<>();
        for (int i = 0; i < 2 * addresses; i++) {
            held.add(playground(i % 2, ips[i % addresses], cookie[i % addresses], "bench/hold", true, 60, prompt()));
        }
        holdPhase("G16b in flight", held, 1000, "playground", "playground:inflight:all", 3, false);

        // Requests per minute: every address sends one request every 3 s (its 20 per minute) for 75 s, short
        // answers so that no in-flight cap gets in the way: ~12,000 offered per minute against 10,000.
        log("G16b: 600 addresses at 20 requests per minute each for 75 s (~12,000 per minute offered)");
        try (Redis redis = new Redis()) {
            AtomicLong rpmMax = new AtomicLong();
            Thread rpm = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    long now = System.currentTimeMillis();
                    long n = redis.number("ZCOUNT", redisPrefix + "playground:rpm:all", "(" + (now - 60_000), "+inf");
                    rpmMax.accumulateAndGet(n, Math::max);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            rpm.setDaemon(true);
            rpm.start();
            long fromWall = System.currentTimeMillis();
            Load main = Load.run("G16b", 200, 75, i -> playground(i % 2, ips[i % addresses], cookie[i % addresses],
                    "bench/instant", false, 16, prompt()));
            List<Call> calls = main.await();
            rpm.interrupt();
            rpm.join();
            dump("G16b-rate", calls);
            List<Call> all = new ArrayList<>(cookieCalls);
            all.addAll(held);
            all.addAll(calls);
            List<Call> adm = admitted(all);
            Windows w = windows(adm, MINUTE);
            int offeredPeak = maxIn(all.stream().mapToLong(c -> c.sent).toArray(), MINUTE);
            row("G16b rate", "offered / admitted / refused (this phase)", calls.size() + " / " + admitted(calls).size()
                    + " / " + calls.stream().filter(c -> c.status == 429).count() + " " + statuses(calls)
                    + "; refusals by reason " + reasons429(calls) + "; max send lag " + Load.maxLagMillis(calls)
                    + " ms", "informational", "");
            check("G16b rate", "all playground admissions of G16b in any 60 s window (offered in the busiest: "
                    + offeredPeak + "; Redis bucket playground:rpm:all sampled every 100 ms, max "
                    + rpmMax.get() + ")", w.text(), "certain ≤ 10,000", w.certain() <= 10_000);
            check("G16b rate", "answers other than 200/429", failures(calls).size() + firstError(failures(calls)),
                    "0", failures(calls).isEmpty());
            row("G16b rate", "gateway logs during the phase (Redis trouble)", storeTrouble(fromWall,
                    System.currentTimeMillis()), "diagnostic", "");
        }
    }

    // =============================================================================================================
    // Output

    static void row(String goal, String what, String measured, String criterion, String result) {
        ROWS.add(new String[] {goal, what, measured, criterion, result});
        System.err.printf("[%s] %s | %s | %s | %s | %s%n", elapsed(), goal, what, measured, criterion, result);
    }

    static boolean check(String goal, String what, String measured, String criterion, boolean passed) {
        ok &= passed;
        row(goal, what, measured, criterion, passed ? "PASS" : "FAIL");
        return passed;
    }

    static void printTable() {
        System.out.println("| Goal | Measure | Measured | Pass criterion | Result |");
        System.out.println("|---|---|---|---|---|");
        for (String[] r : ROWS) {
            System.out.println("| " + String.join(" | ", Arrays.stream(r).map(x -> x.replace("|", "\\|")).toList())
                    + " |");
        }
    }

    static String elapsed() {
        long s = (System.nanoTime() - START_NANOS) / 1_000_000_000L;
        return String.format("%02d:%02d", s / 60, s % 60);
    }

    static void log(String message) {
        System.err.println("[" + elapsed() + "] " + message);
    }
}
