import dev.tollgate.adapter.out.persistence.quota.RedisQuotaCounter;
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
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one traffic-limit decision costs Redis itself, apart from any queueing: ONE caller decides the default /v1
 * chat demand (the same subjects and prompts as LimiterBench: 400 keys of 80 accounts from 80 source IPs) and gives
 * its slots back, N times in a row, and Redis's own accounting ({@code INFO commandstats}, reset before each round)
 * tells how long its scripts ran and how much of that the commands inside them took. LimiterBench measures the
 * latency 32 callers see; this measures the work each of them puts on Redis, which is what the latency queues
 * behind. Run on a quiet Redis (the counters are server-wide).
 *
 * <p>Usage: java -cp bootstrap/target/tollgate.jar bench/RedisScriptCost.java [N, default 15000] [redis URI, default
 * redis://127.0.0.1:6379]. Prints one line per round (three rounds; the first warms up the JIT and fills the
 * windows). A decide.lua put before the jar on the class path ({@code -cp DIR:bootstrap/target/tollgate.jar} with
 * DIR/dev/tollgate/adapter/out/persistence/quota/decide.lua) is measured instead of the shipped one.
 */
public class RedisScriptCost {

    private static final String[] WORDS = {"alpha", "river", "stone", "cloud", "paper", "green", "light", "north",
            "table", "quiet", "sharp", "music", "ocean", "tiger", "maple", "orbit"};
    private static final Pattern STAT = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+),usec=(\\d+),");

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 15_000;
        String uri = args.length > 1 ? args[1] : "redis://127.0.0.1:6379";
        String prefix = "tollgate-scriptcost-" + ProcessHandle.current().pid() + ":";
        RedisQuotaCounter counter = RedisQuotaCounter.connect(uri, prefix, Duration.ofSeconds(2),
                Duration.ofSeconds(30), Clock.systemUTC());
        RedisClient client = RedisClient.create(uri);
        RedisCommands<String, String> redis = client.connect().sync();
        TrafficRules rules = new TrafficRules(TrafficLimits.DEFAULTS);
        Random random = new Random(42);
        try {
            for (int round = 1; round <= 3; round++) {
                redis.configResetstat();
                long refused = 0;
                long start = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    int key = random.nextInt(400);
                    TrafficRules.Caller caller = new TrafficRules.Caller("key-" + key, "account-" + key % 80,
                            "198.51.100." + key % 80);
                    String prompt = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)]
                            + " " + WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
                    TrafficDemand demand = rules.modelRequest(caller, new TrafficRules.Shape("bench/model", 120,
                            PromptFingerprint.of(List.of(new ChatMessage("user", prompt, "{}"))), 100));
                    QuotaDecision decision = counter.decide(demand, Clock.systemUTC().instant());
                    if (!decision.admitted()) {
                        refused++;
                        continue;
                    }
                    counter.release(decision.lease(), Clock.systemUTC().instant());
                }
                long wall = System.nanoTime() - start;
                long scriptUsec = 0;
                long innerCalls = 0;
                long innerUsec = 0;
                for (String line : redis.info("commandstats").split("\r?\n")) {
                    Matcher stat = STAT.matcher(line);
                    if (!stat.find()) {
                        continue;
                    }
                    String command = stat.group(1);
                    if (command.equals("evalsha")) {
                        scriptUsec = Long.parseLong(stat.group(3));
                    } else if (!command.startsWith("config") && !command.equals("info")) {
                        innerCalls += Long.parseLong(stat.group(2));
                        innerUsec += Long.parseLong(stat.group(3));
                    }
                }
                System.out.printf("round %d: %,d decisions (%d refused), %.1f µs each with its release, one "
                        + "caller; Redis: scripts %.1f µs, of which the %.1f commands in them %.1f µs%n", round, n,
                        refused, wall / 1000.0 / n, scriptUsec / (double) n, innerCalls / (double) n,
                        innerUsec / (double) n);
            }
        } finally {
            counter.close();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(1000));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
            client.shutdown();
        }
    }
}
