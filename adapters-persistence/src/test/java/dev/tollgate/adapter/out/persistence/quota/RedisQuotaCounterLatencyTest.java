package dev.tollgate.adapter.out.persistence.quota;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.quota.PromptFingerprint;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What one decision costs over loopback with the default /v1 chat demand (16 checks, 3 cooldown scopes and the
 * behaviour sample): sequential calls after a warm-up, printed, never asserted. Run with
 * {@code -Dtest=RedisQuotaCounterLatencyTest -Dtollgate.latency=true}.
 */
@EnabledIfSystemProperty(named = "tollgate.latency", matches = "true")
class RedisQuotaCounterLatencyTest {

    private static final int WARM_UP = 5_000;
    private static final int MEASURED = 20_000;

    @Test
    void printsTheCostOfOneDecision() {
        String prefix = RedisTestSupport.uniquePrefix("latency");
        TrafficRules rules = new TrafficRules(TrafficLimits.DEFAULTS);
        TrafficRules.Caller caller = new TrafficRules.Caller("key-1", "account-1", "192.0.2.7");
        long[] decide = new long[MEASURED];
        long[] release = new long[MEASURED];
        int admitted = 0;
        long[] server = new long[2];
        long[] releasesOnly = new long[2];
        try (RedisQuotaCounter counter = RedisQuotaCounter.connect(RedisTestSupport.URI, prefix,
                RedisQuotaCounter.DEFAULT_COMMAND_TIMEOUT, RedisQuotaCounter.DEFAULT_LEASE_TTL, Clock.systemUTC())) {
            Instant now = Instant.parse("2026-05-04T10:00:00Z");
            for (int i = 0; i < WARM_UP + MEASURED; i++) {
                if (i == WARM_UP) {
                    server = evalshaStats();
                }
                // 10 a second: within every default limit, and a new prompt each time (no behavioural cooldown).
                now = now.plusMillis(100);
                TrafficDemand demand = rules.modelRequest(caller, new TrafficRules.Shape("model-a", 1_200,
                        new PromptFingerprint(i, 40), null));
                long start = System.nanoTime();
                QuotaDecision decision = counter.decide(demand, now);
                long decided = System.nanoTime();
                counter.release(decision.lease(), now);
                long released = System.nanoTime();
                if (i >= WARM_UP) {
                    decide[i - WARM_UP] = decided - start;
                    release[i - WARM_UP] = released - decided;
                    admitted += decision.admitted() ? 1 : 0;
                }
            }
            server = minus(evalshaStats(), server);
            // The same releases again (their members are gone by now), to tell the decisions' share apart.
            TrafficDemand any = rules.modelRequest(caller, new TrafficRules.Shape("model-a", 1, new PromptFingerprint(
                    0, 40), null));
            SlotLease lease = new SlotLease("gone", any.slots());
            releasesOnly = evalshaStats();
            for (int i = 0; i < MEASURED; i++) {
                counter.release(lease, now);
            }
            releasesOnly = minus(evalshaStats(), releasesOnly);
        } finally {
            RedisTestSupport.deleteAll(prefix);
        }
        System.out.printf("decide  (%d sequential, %d admitted): %s%n", MEASURED, admitted, percentiles(decide));
        System.out.printf("release (%d sequential): %s%n", MEASURED, percentiles(release));
        if (server[0] == 2L * MEASURED && releasesOnly[0] == MEASURED) {
            System.out.printf("server time: decide about %d µs, release about %d µs%n",
                    (server[1] - releasesOnly[1]) / MEASURED, releasesOnly[1] / MEASURED);
        } else {
            System.out.println("server time not shown: other clients ran scripts meanwhile");
        }
        assertTrue(admitted > 0);
    }

    private static long[] minus(long[] a, long[] b) {
        return new long[] {a[0] - b[0], a[1] - b[1]};
    }

    private static String percentiles(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format("p50 %s, p90 %s, p99 %s, max %s", micros(sorted, 50), micros(sorted, 90),
                micros(sorted, 99), micros(sorted, 100));
    }

    private static String micros(long[] sorted, int percent) {
        int index = Math.min(sorted.length - 1, (int) ((long) sorted.length * percent / 100));
        return (sorted[index] / 1_000) + " µs";
    }

    /** Calls and microseconds the server spent in EVALSHA so far (all clients: the machine's Redis is quiet). */
    private static long[] evalshaStats() {
        AtomicReference<String> info = new AtomicReference<>();
        RedisTestSupport.withRedis(redis -> info.set(redis.sync().info("commandstats")));
        for (String line : info.get().split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                long calls = 0;
                long usec = 0;
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    String[] pair = field.split("=");
                    if (pair[0].equals("calls")) {
                        calls = Long.parseLong(pair[1]);
                    } else if (pair[0].equals("usec")) {
                        usec = Long.parseLong(pair[1]);
                    }
                }
                return new long[] {calls, usec};
            }
        }
        return new long[] {0, 0};
    }
}
