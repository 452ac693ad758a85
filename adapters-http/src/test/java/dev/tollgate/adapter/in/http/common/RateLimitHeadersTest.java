package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    @Test
    void durationsReadLikeOpenAIs() {
        assertEquals("0s", RateLimitHeaders.duration(Duration.ZERO));
        assertEquals("250ms", RateLimitHeaders.duration(Duration.ofMillis(250)));
        assertEquals("1s", RateLimitHeaders.duration(Duration.ofSeconds(1)));
        assertEquals("1.5s", RateLimitHeaders.duration(Duration.ofMillis(1_500)));
        assertEquals("9.999s", RateLimitHeaders.duration(Duration.ofMillis(9_999)));
        assertEquals("1m0s", RateLimitHeaders.duration(Duration.ofMinutes(1)));
        assertEquals("6m0.02s", RateLimitHeaders.duration(Duration.ofMillis(360_020)));
        assertEquals("1h0m0s", RateLimitHeaders.duration(Duration.ofHours(1)));
        assertEquals("1.001s", RateLimitHeaders.duration(Duration.ofMillis(1_001)));
        assertEquals("59.05s", RateLimitHeaders.duration(Duration.ofMillis(59_050)));
    }
}
