package dev.tollgate.adapter.in.http.keys;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;

/**
 * G17 fuzz target: request validation of {@code /api/v1/keys} — the create and update bodies, the list's query
 * parameters and the key path segment. Any input is a command, or the documented 400 ({@link InvalidRequestException},
 * {@link DomainRuleViolation}) or 404 ({@link ApiKeyNotFoundException}, a segment that names no key). A limit is a
 * positive whole number of micro-dollars up to $10^12; an expiry has a four-digit UTC year.
 * Inputs: {@code KeyRequestsFuzzTestInputs/}.
 */
class KeyRequestsFuzzTest {

    private static final Usd MAX_LIMIT = Usd.ofMicros(1_000_000_000_000L * 1_000_000L);
    private static final Instant LAST = Instant.parse("9999-12-31T23:59:59.999999999Z");

    @DictionaryEntries({"{\"name\":\"k\"", "\"limit\":", "\"limit_reset\":", "\"daily\"", "\"weekly\"", "\"monthly\"",
            "\"expires_at\":\"", "2030-01-31T23:59:59Z", "T23:59:60Z", ".123456789123", "+23:59", "-18:01", "9999-12-31",
            "\"disabled\":", "\"byok\":", "null", "1e12", "0.0000005", "1000000000000.0000004", "1e-7", "\\u202e"})
    @FuzzTest(maxDuration = "10m")
    void anyBodyIsAKeyRequestOrA400(FuzzedDataProvider data) {
        String offset = data.consumeBoolean() ? null : data.consumeString(16);
        String includeDisabled = data.consumeBoolean() ? null : data.consumeString(16);
        String segment = data.consumeString(80);
        byte[] body = data.consumeRemainingAsBytes();
        try {
            KeyRequests.list(offset, includeDisabled);
        } catch (InvalidRequestException refused) {
            assertNotNull(refused.param());
        }
        try {
            KeyRequests.hash(segment);
        } catch (ApiKeyNotFoundException noSuchKey) {
            // what a path segment that is no key hash gets
        }
        JsonObjectBody parsed;
        try {
            parsed = JsonObjectBody.parse(body);
        } catch (InvalidRequestException refused) {
            return;
        }
        try {
            CreateApiKeyCommand create = KeyRequests.create(parsed);
            if (create.limit() != null) {
                assertTrue(create.limit().isPositive() && create.limit().compareTo(MAX_LIMIT) <= 0, "" + create.limit());
            }
            assertTrue(create.expiresAt() == null || !create.expiresAt().isAfter(LAST));
        } catch (InvalidRequestException | DomainRuleViolation refused) {
            assertNotNull(refused.getMessage());
        }
        try {
            KeyRequests.update(parsed);
        } catch (InvalidRequestException | DomainRuleViolation refused) {
            assertNotNull(refused.getMessage());
        }
    }
}
