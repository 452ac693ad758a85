package dev.tollgate.adapter.out.persistence.quota;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/** The machine's Redis for the adapter's tests: {@code REDIS_URI}, else the local default; keys under a prefix. */
final class RedisTestSupport {

    static final String URI = System.getenv().getOrDefault("REDIS_URI", "redis://127.0.0.1:6379");
    /** The command timeout of tests about decisions, not timing: a loaded CI machine must not fail them. */
    static final java.time.Duration PATIENT = java.time.Duration.ofSeconds(2);

    private RedisTestSupport() {
    }

    /** A prefix no other test run uses, so runs on one server never see each other's buckets. */
    static String uniquePrefix(String testClass) {
        return "tollgate-test:" + testClass + ":" + UUID.randomUUID() + ":";
    }

    /** Every key under {@code prefix} (SCAN, never KEYS: the server may be shared). */
    static List<String> keys(String prefix) {
        List<String> found = new ArrayList<>();
        withRedis(redis -> {
            ScanArgs match = ScanArgs.Builder.matches(escape(prefix) + "*").limit(500);
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.sync().scan(cursor, match);
                found.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
        });
        return found;
    }

    /** Deletes every key under {@code prefix}. */
    static void deleteAll(String prefix) {
        List<String> keys = keys(prefix);
        withRedis(redis -> {
            for (int i = 0; i < keys.size(); i += 500) {
                redis.sync().del(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(String[]::new));
            }
        });
    }

    static void withRedis(Consumer<StatefulRedisConnection<String, String>> work) {
        RedisClient client = RedisClient.create(URI);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            work.accept(redis);
        } finally {
            client.shutdown();
        }
    }

    private static String escape(String prefix) {
        return prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }
}
