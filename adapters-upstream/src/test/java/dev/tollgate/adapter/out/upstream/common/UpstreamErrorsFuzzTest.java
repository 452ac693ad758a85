package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Duration;
import java.time.Instant;

/**
 * G17 fuzz target: what the gateway makes of a provider's error answer — the masking of credentials, URLs, hosts and
 * addresses in its text, the message read from its JSON body, and its {@code Retry-After}. Any text: no exception, a
 * masked text at most a little longer than {@link UpstreamErrors#MASKED_AT_MOST}, a message short enough for a
 * client, a delay that is absent or positive and at most 366 days for a number of seconds. The fuzzer's text is
 * repeated up to the 64 KiB of an error body the client reads, so that work growing faster than the text shows as a
 * slow input. Inputs: {@code UpstreamErrorsFuzzTestInputs/}.
 */
class UpstreamErrorsFuzzTest {

    private static final int ERROR_BODY = 64 * 1024;
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    @DictionaryEntries({"Bearer ", "sk-", "gp-", "key=", "token=", "AKIA", "https://", "://", "[::1]:", "10.0.0.1",
            "a-a.", "api.internal.example.com", "{\"error\":{\"message\":\"", "{\"detail\":[{\"msg\":\"",
            "\"error\":", "\\u", "\\\"", "Wed, 21 Oct 2015 07:28:00 GMT", "1.5", "0.0001", "86400"})
    @FuzzTest(maxDuration = "10m")
    void errorAnswersAreReadWithoutFailingOrSlowingDown(FuzzedDataProvider data) {
        int copies = data.consumeInt(1, 64);
        String header = data.consumeString(64);
        String unit = data.consumeRemainingAsString();
        String body = repeated(unit, copies);

        String masked = UpstreamErrors.mask(body);
        assertTrue(masked.length() <= UpstreamErrors.MASKED_AT_MOST + 64 + 4 * UpstreamErrors.MASKED_AT_MOST,
                "masked text length " + masked.length());
        String message = UpstreamErrors.providerMessage(body);
        assertTrue(message.length() <= 303, "a client's message is abbreviated");
        UpstreamErrors.providerMessage(unit);

        Duration wait = StreamingExchange.retryAfter(header, NOW);
        assertTrue(wait == null || !wait.isNegative() && !wait.isZero(), "a delay is positive: " + wait);
        if (wait != null && header.strip().matches("[0-9.]+")) {
            assertTrue(wait.compareTo(Duration.ofDays(366)) <= 0, "a delay in seconds is at most 366 days");
        }
        StreamingExchange.abbreviate(body);
    }

    private static String repeated(String unit, int copies) {
        if (unit.isEmpty()) {
            return unit;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < copies && text.length() + unit.length() <= ERROR_BODY; i++) {
            text.append(unit);
        }
        return text.length() == 0 ? unit : text.toString();
    }
}
