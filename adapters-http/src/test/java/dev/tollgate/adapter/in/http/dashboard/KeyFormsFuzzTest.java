package dev.tollgate.adapter.in.http.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.domain.shared.Usd;
import java.util.Map;

/**
 * G17 fuzz target: the dashboard's key form fields (anyone with a session types them). Any text is a value or a
 * {@link KeyForms.FieldError} shown next to the form: a limit is a positive whole number of micro-dollars up to
 * $10^12 that its input value shows again; an expiry reads back from its input value. Inputs:
 * {@code KeyFormsFuzzTestInputs/}.
 */
class KeyFormsFuzzTest {

    private static final Usd MAX_LIMIT = Usd.ofMicros(1_000_000_000_000L * 1_000_000L);

    @DictionaryEntries({"$", ",", ".", "1,000", "1,000,000.50", "0.0000005", "1000000000000", "2030-01-31T23:59",
            ":59.999", "T24:00", " ", "daily", "weekly", "monthly"})
    @FuzzTest(maxDuration = "10m")
    void anyFormFieldIsAValueOrAFieldError(FuzzedDataProvider data) {
        Map<String, String> form = Map.of("limit", data.consumeString(200), "limit_reset", data.consumeString(16),
                "expires_at", data.consumeRemainingAsString());
        try {
            Usd limit = KeyForms.limit(form);
            if (limit != null) {
                assertTrue(limit.isPositive() && limit.compareTo(MAX_LIMIT) <= 0, limit.toString());
                assertEquals(limit, KeyForms.limit(Map.of("limit", KeyForms.inputValue(limit))), "shown and read again");
            }
        } catch (KeyForms.FieldError refused) {
            // shown next to the field
        }
        try {
            KeyForms.reset(form);
        } catch (KeyForms.FieldError refused) {
            // shown next to the field
        }
        try {
            var expiry = KeyForms.expiry(form);
            if (expiry != null) {
                assertEquals(expiry, KeyForms.expiry(Map.of("expires_at", KeyForms.inputValue(expiry))));
            }
        } catch (KeyForms.FieldError refused) {
            // shown next to the field
        }
    }
}
