package dev.tollgate.bootstrap.e2e;

import static dev.tollgate.bootstrap.e2e.UserBilledPlaygroundE2ETest.ask;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * §8.2's caps of "all public playground traffic" (here lowered to 8 requests a minute) count the user-billed
 * requests together with the anonymous ones: neither kind gets past them because the other used them up.
 */
@MicronautTest(transactional = false)
class UserBilledPlaygroundCapsE2ETest extends GatewayE2ETest {

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = super.getProperties();
        useCatalog(properties, UserBilledPlaygroundE2ETest.CATALOG);
        properties.put("tollgate.playground.user-billed", "true");
        properties.put("tollgate.playground.models", "ub/slow");
        properties.put("tollgate.limits.playground.all-per-minute", "8");
        return properties;
    }

    @Test
    void signedInCallersCountInTheCapsOfAllPlaygroundTrafficWithTheAnonymousOnes() {
        String first = regularKey();
        String second = regularKey();
        for (int i = 0; i < 7; i++) {
            Reply reply = post("/v1/public/chat/completions", i % 2 == 0 ? first : second, ask("ub/slow", false, 4));
            assertEquals(200, reply.status(), i + ": " + reply.raw().body());
        }
        assertEquals(200, post("/v1/public/chat/completions", null, ask("ub/slow", false, 4)).status(),
                "the eighth request of the minute, anonymous");

        for (String caller : new String[] {second, null}) {
            Reply refused = post("/v1/public/chat/completions", caller, ask("ub/slow", false, 4));
            assertEquals(429, refused.status(), refused.raw().body());
            assertEquals("rate_limit_exceeded", refused.error().get("code"));
            assertEquals("playground", refused.header("x-ratelimit-scope-requests"), refused.raw().body());
        }
        assertEquals(200, post("/v1/chat/completions", second, ask("ub/slow", false, 4)).status(),
                "/v1 is no playground traffic");
    }
}
