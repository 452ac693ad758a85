package dev.tollgate.adapter.in.http.completions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SseSettingsTest {

    @Test
    void aPositiveKeepAliveIsKept() {
        assertEquals(Duration.ofMillis(1), new SseSettings(Duration.ofMillis(1), Duration.ofSeconds(60)).keepAlive());
    }

    @Test
    void aKeepAliveThatIsNotPositiveIsRefusedWithTheSettingsName() {
        for (Duration wrong : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1), null}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> new SseSettings(wrong, Duration.ofSeconds(60)));
            assertTrue(refused.getMessage().contains("TOLLGATE_SSE_KEEP_ALIVE"), refused.getMessage());
        }
    }
}
