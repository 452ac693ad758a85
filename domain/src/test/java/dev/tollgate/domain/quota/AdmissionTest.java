package dev.tollgate.domain.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AdmissionTest {

    private static final Instant T0 = Instant.parse("2026-05-04T10:00:00Z");

    private static QuotaCheck.Requests requests(LimitScope scope, long limit, Duration window) {
        return new QuotaCheck.Requests(new Bucket(scope, "s", "r" + window.toMillis()), limit, window, null);
    }

    @Test
    void theRefusalWithTheLongestWaitDecidesAndItsMessageNamesTheBucket() {
        QuotaCheck.Requests burst = requests(LimitScope.KEY, 200, Duration.ofSeconds(10));
        QuotaCheck.Requests minute = requests(LimitScope.ACCOUNT, 3_000, Duration.ofMinutes(1));
        QuotaDecision decision = new QuotaDecision(List.of(
                new CheckState(burst, 200, Duration.ofMillis(4_200), Duration.ofSeconds(10)),
                new CheckState(minute, 3_000, Duration.ofMillis(31_000), Duration.ofSeconds(60))), null,
                SlotLease.NONE);
        Admission.Refused refused = assertInstanceOf(Admission.Refused.class, Admission.of(decision));
        assertEquals(LimitScope.ACCOUNT, refused.refusal().scope());
        assertEquals(31, refused.refusal().retryAfterSeconds());
        assertEquals("Rate limit exceeded: this account allows 3000 requests per minute; retry after 31 s.",
                refused.refusal().message());
        assertEquals(LimitScope.ACCOUNT, refused.report().requests().scope(), "the headers name the refusing bucket");
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        assertEquals(1, refusal(Duration.ofMillis(1)).retryAfterSeconds());
        assertEquals(1, refusal(Duration.ZERO).retryAfterSeconds());
        assertEquals(2, refusal(Duration.ofMillis(1_001)).retryAfterSeconds());
        assertEquals(10, refusal(Duration.ofSeconds(10)).retryAfterSeconds());
    }

    private static Refusal refusal(Duration wait) {
        return new Refusal(Refusal.Kind.REQUESTS, LimitScope.KEY, "m", wait);
    }

    @Test
    void theReportShowsTheBucketWithTheLeastLeft() {
        QuotaCheck.Requests burst = requests(LimitScope.KEY, 200, Duration.ofSeconds(10));
        QuotaCheck.Requests minute = requests(LimitScope.KEY, 600, Duration.ofMinutes(1));
        QuotaCheck.Tokens tokens = new QuotaCheck.Tokens(new Bucket(LimitScope.ACCOUNT, "a", "tpm"), 1_000, 10,
                Duration.ofMinutes(1), false);
        QuotaDecision decision = new QuotaDecision(List.of(
                new CheckState(burst, 150, Duration.ZERO, Duration.ofSeconds(9)),
                new CheckState(minute, 590, Duration.ZERO, Duration.ofSeconds(59)),
                new CheckState(tokens, 400, Duration.ZERO, Duration.ofSeconds(70))), null, SlotLease.NONE);
        RateLimitReport report = Admission.of(decision).report();
        assertEquals(new RateLimitReport.Window(LimitScope.KEY, 600, 10, Duration.ofSeconds(59)), report.requests());
        assertEquals(new RateLimitReport.Window(LimitScope.ACCOUNT, 1_000, 600, Duration.ofSeconds(70)),
                report.tokens());
    }

    @Test
    void aCooldownRefusalReportsTheBucketOfItsScope() {
        Bucket keyIp = new Bucket(LimitScope.KEY_IP, "k@ip", "rpm");
        QuotaCheck.Requests scoped = new QuotaCheck.Requests(keyIp, 600, Duration.ofMinutes(1), keyIp);
        QuotaCheck.Requests key = requests(LimitScope.KEY, 200, Duration.ofSeconds(10));
        QuotaDecision decision = new QuotaDecision(List.of(
                new CheckState(scoped, 10, Duration.ZERO, Duration.ofSeconds(60)),
                new CheckState(key, 199, Duration.ZERO, Duration.ofSeconds(10))),
                new QuotaDecision.CooldownBlock(keyIp, Duration.ofSeconds(20), false), SlotLease.NONE);
        RateLimitReport report = Admission.of(decision).report();
        assertEquals(LimitScope.KEY_IP, report.requests().scope(), "not the key's burst, which has the least left");
        assertEquals(0, report.requests().remaining(), "nothing passes while the scope cools down");
        assertEquals(Duration.ofSeconds(60), report.requests().reset(), "the window's reset, later than the cooldown");

        QuotaDecision shortWindow = new QuotaDecision(List.of(
                new CheckState(scoped, 10, Duration.ZERO, Duration.ofSeconds(5))),
                new QuotaDecision.CooldownBlock(keyIp, Duration.ofSeconds(20), false), SlotLease.NONE);
        assertEquals(Duration.ofSeconds(20), Admission.of(shortWindow).report().requests().reset(),
                "never whole again before the cooldown ends");
    }

    @Test
    void aCooldownRefusalWaitsAtLeastUntilTheFullWindowOfTheRequestHasRoom() {
        // An audit: told 30 s (the cooldown), a client obeyed and was refused again by the minute window (36 s).
        Bucket key = new Bucket(LimitScope.KEY, "k", "rpm");
        QuotaCheck.Requests minute = new QuotaCheck.Requests(key, 600, Duration.ofMinutes(1), key);
        QuotaDecision decision = new QuotaDecision(List.of(
                new CheckState(minute, 0, Duration.ofSeconds(36), Duration.ofSeconds(60))),
                new QuotaDecision.CooldownBlock(key, Duration.ofSeconds(30), false), SlotLease.NONE);
        Admission.Refused refused = (Admission.Refused) Admission.of(decision);
        assertEquals(36, refused.refusal().retryAfterSeconds());
        assertTrue(refused.refusal().message().contains("paused for 36 s"), refused.refusal().message());
        QuotaDecision shorter = new QuotaDecision(List.of(
                new CheckState(minute, 0, Duration.ofSeconds(12), Duration.ofSeconds(60))),
                new QuotaDecision.CooldownBlock(key, Duration.ofSeconds(30), false), SlotLease.NONE);
        assertEquals(30, ((Admission.Refused) Admission.of(shorter)).refusal().retryAfterSeconds(),
                "the cooldown, when it is the longer wait");
    }

    @Test
    void aConcurrencyOrDistinctRefusalReportsThatCapNotARequestBucketWithRoomLeft() {
        QuotaCheck.Requests minute = requests(LimitScope.KEY_IP, 600, Duration.ofMinutes(1));
        QuotaCheck.Concurrency slots = new QuotaCheck.Concurrency(new Bucket(LimitScope.KEY, "k", "slots"), 50);
        QuotaDecision busy = new QuotaDecision(List.of(
                new CheckState(minute, 8, Duration.ZERO, Duration.ZERO),
                new CheckState(slots, 50, Duration.ofSeconds(1), Duration.ZERO)), null, SlotLease.NONE);
        assertEquals(new RateLimitReport.Window(LimitScope.KEY, 50, 0, Duration.ofSeconds(1)),
                Admission.of(busy).report().requests());

        QuotaCheck.Distinct ips = new QuotaCheck.Distinct(new Bucket(LimitScope.KEY, "k", "ips"), "10.0.0.9", 200,
                Duration.ofHours(1));
        QuotaDecision spread = new QuotaDecision(List.of(
                new CheckState(minute, 8, Duration.ZERO, Duration.ZERO),
                new CheckState(ips, 200, Duration.ofSeconds(3_600), Duration.ofSeconds(3_600))), null,
                SlotLease.NONE);
        assertEquals(new RateLimitReport.Window(LimitScope.KEY, 200, 0, Duration.ofSeconds(3_600)),
                Admission.of(spread).report().requests());
    }

    @Test
    void aBehaviouralCooldownReportsItsOwnScopeWithNothingLeft() {
        QuotaCheck.Requests key = requests(LimitScope.KEY, 300, Duration.ofSeconds(10));
        QuotaDecision decision = new QuotaDecision(List.of(new CheckState(key, 10, Duration.ZERO,
                Duration.ofSeconds(55))), new QuotaDecision.CooldownBlock(new Bucket(LimitScope.KEY_IP_MODEL,
                        "k@ip@m", "behaviour"), Duration.ofSeconds(40), true), SlotLease.NONE);
        RateLimitReport report = Admission.of(decision).report();
        assertEquals(LimitScope.KEY_IP_MODEL, report.requests().scope(), "the cooldown's scope, not the key's");
        assertEquals(0, report.requests().remaining());
        assertEquals(Duration.ofSeconds(40), report.requests().reset());
    }

    @Test
    void aCooldownRefusalSaysSoAndWaitsForItsEnd() {
        QuotaDecision decision = new QuotaDecision(List.of(), new QuotaDecision.CooldownBlock(
                new Bucket(LimitScope.KEY_IP, "k@ip", "rpm"), Duration.ofMillis(29_500), false), SlotLease.NONE);
        Refusal refusal = ((Admission.Refused) Admission.of(decision)).refusal();
        assertEquals(Refusal.Kind.COOLDOWN, refusal.kind());
        assertEquals(30, refusal.retryAfterSeconds());
        assertTrue(refusal.message().contains("paused for 30 s"), refusal.message());
    }

    @Test
    void aClientThatWaitsRetryAfterOnceIsAdmitted() {
        // G8: a lone client that sleeps Retry-After once succeeds (non-cooldown buckets).
        TrafficRules rules = new TrafficRules(TrafficLimits.DEFAULTS.withCooldown(
                new CooldownRule(1_000, Duration.ofSeconds(1), Duration.ofSeconds(1))));
        LocalQuotas quotas = new LocalQuotas(new HashMap<>());
        TrafficDemand demand = rules.modelRequest(new TrafficRules.Caller("k", "a", "ip"), null);
        Random random = new Random(5);
        Instant now = T0;
        int refusals = 0;
        for (int i = 0; i < 3_000; i++) {
            now = now.plusMillis(random.nextInt(40));
            Admission admission = Admission.of(quotas.decide(demand, now));
            if (admission instanceof Admission.Refused refused) {
                refusals++;
                assertEquals(Refusal.Kind.REQUESTS, refused.refusal().kind());
                now = now.plusSeconds(refused.refusal().retryAfterSeconds());
                assertInstanceOf(Admission.Admitted.class, Admission.of(quotas.decide(demand, now)),
                        "admitted after waiting Retry-After");
            }
        }
        assertTrue(refusals > 10, "the test exercised refusals: " + refusals);
    }
}
