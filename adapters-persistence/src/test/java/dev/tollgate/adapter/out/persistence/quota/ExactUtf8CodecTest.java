package dev.tollgate.adapter.out.persistence.quota;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The codec's size estimate is the exact length of what it writes, and what it writes Redis gives back. */
class ExactUtf8CodecTest {

    private static final List<String> TEXTS = List.of("", "tollgate:q:key:6f1c", "127.0.0.1", "1764280000123",
            "café", "模型-东京", "emoji 🚀 model", "a\uD800b" /* an unpaired surrogate */, "\uDC00", "\uD83D",
            "x".repeat(5_000));

    @Test
    void theEstimateIsExactlyTheBytesWritten() {
        assertTrue(ExactUtf8Codec.INSTANCE.isEstimateExact());
        for (String text : TEXTS) {
            ByteBuf key = Unpooled.buffer();
            ByteBuf value = Unpooled.buffer();
            ExactUtf8Codec.INSTANCE.encodeKey(text, key);
            ExactUtf8Codec.INSTANCE.encodeValue(text, value);
            assertEquals(ExactUtf8Codec.INSTANCE.estimateSize(text), key.readableBytes(), text);
            assertEquals(ExactUtf8Codec.INSTANCE.estimateSize(text), value.readableBytes(), text);
            if (!hasSurrogate(text)) {
                byte[] written = new byte[value.readableBytes()];
                value.readBytes(written);
                assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), written, text);
            }
        }
        assertEquals(0, ExactUtf8Codec.INSTANCE.estimateSize(null));
    }

    @Test
    void keysArgumentsAndRepliesSurviveARealRedis() {
        String prefix = RedisTestSupport.uniquePrefix("ExactUtf8CodecTest");
        RedisClient client = RedisClient.create(RedisTestSupport.URI);
        try (StatefulRedisConnection<String, String> connection = client.connect(ExactUtf8Codec.INSTANCE)) {
            RedisCommands<String, String> redis = connection.sync();
            for (String text : TEXTS) {
                if (hasSurrogate(text)) {
                    continue; // written as '?', so not the same text back by design
                }
                redis.set(prefix + text, text);
                assertEquals(text, redis.get(prefix + text), text);
                // Script arguments go through the same encoder: Lua sees the very bytes, and returns them.
                String echoed = redis.eval("return KEYS[1] .. ARGV[1]", ScriptOutputType.VALUE,
                        new String[] {prefix}, text);
                assertEquals(prefix + text, echoed, text);
            }
        } finally {
            client.shutdown();
            RedisTestSupport.deleteAll(prefix);
        }
    }

    private static boolean hasSurrogate(String text) {
        return text.chars().anyMatch(c -> Character.isSurrogate((char) c));
    }
}
