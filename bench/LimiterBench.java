import dev.tollgate.adapter.out.persistence.quota.InProcessQuotaCounter;
import dev.tollgate.adapter.out.persistence.quota.RedisQuotaCounter;
import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.quota.PromptFingerprint;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.TrafficDemand;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the traffic limits add to a request, measured on the store alone: THREADS callers (32 by default, the
 * benchmark's concurrency) each decide the default /v1 chat demand (16 checks, 3 cooldown scopes, the behavioural
 * sample) with the spec's limits, hold the admitted request's slots for a simulated request time of 10 ms (about
 * what a request takes through the gateway at concurrency 32), then give them back. Subjects are spread as a busy
 * deployment's would be — 400 keys of 80 accounts from 80 source IPs — so every bucket stays within its limit
 * and its sorted sets / rings hold what they would in production. Prints p50, p99 and p99.9 of one decision and
 * of one release, the rate reached, and how many requests were refused (expected: none).
 *
 * Usage: java -cp bootstrap/target/tollgate.jar bench/LimiterBench.java
 * in-process|redis://127.0.0.1:6379|baseline|redis-floor [threads] [seconds] [lockstep|spread]. "lockstep" (the
 * default) starts every caller at once and holds each request 10 ms, so the callers stay in phase and arrive in
 * bursts of up to THREADS at a time; "spread" starts them out of phase and holds each request 5-15 ms (uniform,
 * mean 10 ms), so they arrive one by one as independent clients would. "baseline" times the same loop around
 * a store that admits everything without looking: the timing floor of this machine and harness (thread wake-ups,
 * preemption, the loop's own garbage), to compare with. "redis-floor" admits everything too, after one round trip
 * to the Redis on 127.0.0.1:6379 each: the floor of any Redis-backed decision.
 */
public class LimiterBench {

    private static final int KEYS = 400;
    private static final int ACCOUNTS = 80;
    private static final int IPS = 80;
    private static final String[] WORDS = {"alpha", "river", "stone", "cloud", "paper", "green", "light", "north",
            "table", "quiet", "sharp", "music", "ocean", "tiger", "maple", "orbit"};

    public static void main(String[] args) throws Exception {
        String store = args.length > 0 ? args[0] : "in-process";
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        boolean spread = switch (args.length > 3 ? args[3] : "lockstep") {
            case "lockstep" -> false;
            case "spread" -> true;
            default -> throw new IllegalArgumentException("arrivals: lockstep or spread");
        };
        String prefix = "tollgate-limiterbench-" + ProcessHandle.current().pid() + ":";
        QuotaCounter counter = switch (store) {
            case "in-process" -> new InProcessQuotaCounter();
            case "baseline" -> new AdmitAll();
            case "redis-floor" -> new RoundTrip("redis://127.0.0.1:6379");
            default -> RedisQuotaCounter.connect(store, prefix, Duration.ofMillis(250), Duration.ofSeconds(30),
                    Clock.systemUTC());
        };
        TrafficRules rules = new TrafficRules(TrafficLimits.DEFAULTS);
        try {
            run(counter, rules, threads, 5, spread); // warm-up: JIT, connections, buckets
            Result result = run(counter, rules, threads, seconds, spread);
            System.out.println("| store | threads | decisions/s | refused | decide p50 / p99 / p99.9 | release p50 / p99 |");
            System.out.println("|---|---|---|---|---|---|");
            System.out.printf("| %s | %d | %.0f | %d | %s / %s / %s ms | %s / %s ms |%n",
                    store.startsWith("redis") ? "Redis" : store.equals("baseline") ? "baseline (admits all)"
                            : "in process", threads,
                    result.decisions / (double) seconds, result.refused,
                    ms(result.decide, 0.50), ms(result.decide, 0.99), ms(result.decide, 0.999),
                    ms(result.release, 0.50), ms(result.release, 0.99));
        } finally {
            if (counter instanceof RedisQuotaCounter redis) {
                redis.close();
                deleteKeys(store, prefix);
            } else if (counter instanceof RoundTrip roundTrip) {
                roundTrip.close();
            }
        }
    }

    private record Result(long decisions, long refused, long[] decide, long[] release) {
    }

    /** The timing floor: every demand admitted at once, its slots handed back without bookkeeping. */
    private static final class AdmitAll implements QuotaCounter {
        @Override
        public QuotaDecision decide(TrafficDemand demand, java.time.Instant now) {
            return new QuotaDecision(List.of(), null, new dev.tollgate.domain.quota.SlotLease("all", demand.slots()));
        }

        @Override
        public void release(dev.tollgate.domain.quota.SlotLease lease, java.time.Instant now) {
            // nothing was counted
        }
    }

    /**
     * The Redis floor: admits everything like {@link AdmitAll}, after one round trip to Redis each (a script that
     * does nothing, on one shared connection, as the Redis store talks to it): what any Redis-backed decision
     * costs at least on this machine, before the script does any work.
     */
    private static final class RoundTrip implements QuotaCounter, AutoCloseable {
        private final RedisClient client;
        private final io.lettuce.core.api.sync.RedisCommands<String, String> redis;
        private final String sha;

        RoundTrip(String uri) {
            client = RedisClient.create(uri);
            redis = client.connect().sync();
            sha = redis.scriptLoad("return 1");
        }

        @Override
        public void close() {
            client.shutdown();
        }

        @Override
        public QuotaDecision decide(TrafficDemand demand, java.time.Instant now) {
            redis.evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER, new String[0]);
            return new QuotaDecision(List.of(), null, new dev.tollgate.domain.quota.SlotLease("all", demand.slots()));
        }

        @Override
        public void release(dev.tollgate.domain.quota.SlotLease lease, java.time.Instant now) {
            redis.evalsha(sha, io.lettuce.core.ScriptOutputType.INTEGER, new String[0]);
        }
    }

    private static Result run(QuotaCounter counter, TrafficRules rules, int threads, int seconds, boolean spread)
            throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        AtomicLong refused = new AtomicLong();
        List<long[]> decides = new ArrayList<>();
        List<long[]> releases = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] decide = new long[400_000];
            long[] release = new long[400_000];
            int[] count = new int[2];
            decides.add(decide);
            releases.add(release);
            counts.add(count);
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                if (spread) {
                    LockSupport.parkNanos(random.nextLong(10_000_000)); // callers start out of phase
                }
                while (System.nanoTime() < end && count[0] < decide.length) {
                    int key = random.nextInt(KEYS);
                    TrafficRules.Caller caller = new TrafficRules.Caller("key-" + key, "account-" + key % ACCOUNTS,
                            "198.51.100." + key % IPS);
                    String prompt = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)]
                            + " " + WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
                    TrafficDemand demand = rules.modelRequest(caller, new TrafficRules.Shape("bench/model", 120,
                            PromptFingerprint.of(List.of(new ChatMessage("user", prompt, "{}"))), 100));
                    long start = System.nanoTime();
                    QuotaDecision decision = counter.decide(demand, Clock.systemUTC().instant());
                    decide[count[0]++] = System.nanoTime() - start;
                    if (!decision.admitted()) {
                        refused.incrementAndGet();
                        continue;
                    }
                    // The request runs, holding its slots: 10 ms each in lockstep (all callers start together
                    // and stay in phase), 5-15 ms when spread (requests of varied length, out of phase).
                    LockSupport.parkNanos(spread ? random.nextLong(5_000_000, 15_000_001) : 10_000_000);
                    long released = System.nanoTime();
                    counter.release(decision.lease(), Clock.systemUTC().instant());
                    release[count[1]++] = System.nanoTime() - released;
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long decisions = counts.stream().mapToLong(c -> c[0]).sum();
        return new Result(decisions, refused.get(), merge(decides, counts, 0), merge(releases, counts, 1));
    }

    private static long[] merge(List<long[]> parts, List<int[]> counts, int which) {
        long total = counts.stream().mapToLong(c -> c[which]).sum();
        long[] all = new long[(int) total];
        int at = 0;
        for (int i = 0; i < parts.size(); i++) {
            int n = counts.get(i)[which];
            System.arraycopy(parts.get(i), 0, all, at, n);
            at += n;
        }
        Arrays.sort(all);
        return all;
    }

    private static String ms(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return "n/a";
        }
        long nanos = sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
        return String.format("%.3f", nanos / 1_000_000.0);
    }

    private static void deleteKeys(String uri, String prefix) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.sync().scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(1000));
                if (!page.getKeys().isEmpty()) {
                    redis.sync().del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
    }
}
