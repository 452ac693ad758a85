package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.BehaviourRule;
import dev.tollgate.domain.quota.BehaviourSample;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.CheckState;
import dev.tollgate.domain.quota.CooldownRule;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.QuotaCheck;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link QuotaCounter}: every store (the in-memory fake, the in-process store, Redis) decides the same
 * way as the domain's reference rules. Every test uses fresh subjects, so a shared store needs no cleaning.
 */
public abstract class AbstractQuotaCounterContractTest {

    /** A second boundary far from any window edge, so fixed-window arithmetic is predictable. */
    private static final Instant T0 = Instant.parse("2026-05-04T10:00:00.000Z");
    private static final Duration TEN_S = Duration.ofSeconds(10);
    private static final CooldownRule COOLDOWN = new CooldownRule(3, Duration.ofSeconds(60), Duration.ofSeconds(30));

    private QuotaCounter counter;
    private String subject;

    protected abstract QuotaCounter counter();

    @BeforeEach
    public void setUp() {
        counter = counter();
        subject = UUID.randomUUID().toString();
    }

    private Bucket bucket(LimitScope scope, String rule) {
        return new Bucket(scope, subject, rule);
    }

    private static Instant at(long millis) {
        return T0.plusMillis(millis);
    }

    private QuotaDecision decide(Instant now, QuotaCheck... checks) {
        return counter.decide(new TrafficDemand(List.of(checks), List.of(), COOLDOWN, null), now);
    }

    @Test
    public void aRequestWindowAdmitsItsLimitAndTellsHowLongToWait() {
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.KEY, "burst"), 3, TEN_S, null);
        assertTrue(decide(at(0), window).admitted());
        assertTrue(decide(at(5_000), window).admitted());
        QuotaDecision third = decide(at(9_000), window);
        assertTrue(third.admitted());
        assertEquals(3, third.states().get(0).used());
        assertEquals(0, third.states().get(0).remaining());
        assertEquals(Duration.ofMillis(10_000), third.states().get(0).reset(), "the newest leaves at 19 s");

        QuotaDecision refused = decide(at(9_500), window);
        assertFalse(refused.admitted());
        assertEquals(Duration.ofMillis(500), refused.states().get(0).retryAfter(), "the oldest leaves at 10 s");
        assertEquals(3, refused.states().get(0).used());
    }

    @Test
    public void theWindowSlidesToTheMillisecond() {
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.KEY, "burst"), 3, TEN_S, null);
        decide(at(0), window);
        decide(at(5_000), window);
        decide(at(9_000), window);
        assertFalse(decide(at(9_999), window).admitted());
        assertTrue(decide(at(10_000), window).admitted(), "the request of t=0 left the window at t=10 s");
        QuotaDecision refused = decide(at(11_000), window);
        assertFalse(refused.admitted());
        assertEquals(Duration.ofMillis(4_000), refused.states().get(0).retryAfter(), "t=5 s leaves at 15 s");
    }

    @Test
    public void noWindowEverHoldsMoreThanTheLimitAtTwiceTheRate() {
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.KEY, "rpm"), 20,
                Duration.ofSeconds(1), null);
        List<Long> admitted = new ArrayList<>();
        for (long t = 0; t < 5_000; t += 25) { // 40 per second offered against 20 per second
            if (decide(at(t), window).admitted()) {
                admitted.add(t);
            }
        }
        for (int i = 0; i + 20 < admitted.size(); i++) {
            assertTrue(admitted.get(i + 20) - admitted.get(i) >= 1_000, "21 admissions within one second at " + i);
        }
        assertTrue(admitted.size() >= 95, "about 20 per second are admitted, was " + admitted.size());
    }

    @Test
    public void aRefusedRequestConsumesNothingInTheOtherBuckets() {
        QuotaCheck.Requests small = new QuotaCheck.Requests(bucket(LimitScope.KEY, "rpm"), 1, TEN_S, null);
        QuotaCheck.Requests large = new QuotaCheck.Requests(bucket(LimitScope.ACCOUNT, "rpm"), 10, TEN_S, null);
        QuotaCheck.Concurrency slots = new QuotaCheck.Concurrency(bucket(LimitScope.ACCOUNT, "inflight"), 5);
        QuotaCheck.Distinct ips = new QuotaCheck.Distinct(bucket(LimitScope.KEY, "ips"), "10.0.0.1", 5,
                Duration.ofHours(1));
        QuotaCheck.Tokens tokens = new QuotaCheck.Tokens(bucket(LimitScope.KEY, "tpm"), 1_000, 100,
                Duration.ofMinutes(1), false);
        QuotaDecision first = decide(at(0), small, large, slots, ips, tokens);
        assertTrue(first.admitted());
        counter.release(first.lease(), at(0));
        for (int i = 0; i < 5; i++) {
            assertFalse(decide(at(100 + i), small, large, slots, ips.withMember("10.0.0." + (i + 2)), tokens)
                    .admitted());
        }
        QuotaDecision after = decide(at(200), large, slots, ips.withMember("10.0.0.9"), tokens);
        assertTrue(after.admitted());
        assertEquals(2, after.states().get(0).used(), "only the admitted request counted");
        assertEquals(1, after.states().get(1).used(), "the slot of the first request was given back");
        assertEquals(2, after.states().get(2).used(), "refused requests added no member");
        assertEquals(200, after.states().get(3).used(), "refused requests added no tokens");
    }

    @Test
    public void theLongestWaitIsTheOneReported() {
        QuotaCheck.Requests burst = new QuotaCheck.Requests(bucket(LimitScope.KEY, "burst"), 1, TEN_S, null);
        QuotaCheck.Requests minute = new QuotaCheck.Requests(bucket(LimitScope.KEY, "rpm"), 1,
                Duration.ofMinutes(1), null);
        assertTrue(decide(at(0), burst, minute).admitted());
        QuotaDecision refused = decide(at(1_000), burst, minute);
        assertEquals(Duration.ofMillis(9_000), refused.states().get(0).retryAfter());
        assertEquals(Duration.ofMillis(59_000), refused.states().get(1).retryAfter());
    }

    @Test
    public void distinctMembersAreExactAndKnownMembersAlwaysPass() {
        Duration hour = Duration.ofHours(1);
        QuotaCheck.Distinct ips = new QuotaCheck.Distinct(bucket(LimitScope.KEY, "ips"), "a", 2, hour);
        assertTrue(decide(at(0), ips).admitted());
        assertTrue(decide(at(1_000), ips.withMember("b")).admitted());
        QuotaDecision third = decide(at(2_000), ips.withMember("c"));
        assertFalse(third.admitted());
        assertEquals(Duration.ofMillis(3_600_000 - 2_000), third.states().get(0).retryAfter());
        assertTrue(decide(at(3_000), ips.withMember("a")).admitted(), "a known member passes");
        // a was seen again at 3 s, so b (seen at 1 s) is the first to leave.
        assertFalse(decide(at(3_600_999), ips.withMember("c")).admitted());
        assertTrue(decide(at(3_601_000), ips.withMember("c")).admitted());
    }

    /**
     * A set holding more than the limit it is checked against (a failover's share of the limit, members handed over
     * after an outage): a place frees up only once enough members have left (a review found the wait told until the
     * oldest left, after which the client was refused again).
     */
    @Test
    public void aSetOverTheLimitItIsCheckedAgainstSaysWhenEnoughMembersHaveLeft() {
        Duration hour = Duration.ofHours(1);
        QuotaCheck.Distinct ips = new QuotaCheck.Distinct(bucket(LimitScope.KEY, "ips"), "a", 3, hour);
        assertTrue(decide(at(0), ips).admitted());
        assertTrue(decide(at(1_000), ips.withMember("b")).admitted());
        assertTrue(decide(at(2_000), ips.withMember("c")).admitted());
        QuotaCheck.Distinct share = new QuotaCheck.Distinct(bucket(LimitScope.KEY, "ips"), "d", 2, hour);
        QuotaDecision refused = decide(at(3_000), share);
        assertFalse(refused.admitted());
        assertEquals(Duration.ofMillis(3_601_000 - 3_000), refused.states().get(0).retryAfter(), "a and b must leave");
        assertFalse(decide(at(3_600_000), share).admitted(), "a has left, b not yet");
        assertTrue(decide(at(3_601_000), share).admitted());
    }

    @Test
    public void concurrencySlotsAreHeldUntilReleased() {
        QuotaCheck.Concurrency cap = new QuotaCheck.Concurrency(bucket(LimitScope.KEY, "inflight"), 2);
        QuotaDecision one = decide(at(0), cap);
        QuotaDecision two = decide(at(0), cap);
        assertTrue(one.admitted() && two.admitted());
        assertEquals(2, two.states().get(0).used());
        QuotaDecision three = decide(at(0), cap);
        assertFalse(three.admitted());
        assertTrue(three.lease().isEmpty());
        assertFalse(three.states().get(0).retryAfter().isZero());
        counter.release(one.lease(), at(10));
        assertTrue(decide(at(20), cap).admitted());
        assertFalse(decide(at(30), cap).admitted());
    }

    @Test
    public void slotsOfAnAdmittedRequestAreAllInItsLease() {
        QuotaCheck.Concurrency key = new QuotaCheck.Concurrency(bucket(LimitScope.KEY, "inflight"), 2);
        QuotaCheck.Concurrency account = new QuotaCheck.Concurrency(bucket(LimitScope.ACCOUNT, "inflight"), 1);
        QuotaDecision first = decide(at(0), key, account);
        assertEquals(2, first.lease().slots().size());
        assertFalse(decide(at(1), key, account).admitted(), "the account has one slot");
        counter.release(first.lease(), at(2));
        QuotaDecision again = decide(at(3), key, account);
        assertTrue(again.admitted());
        assertEquals(1, again.states().get(0).used(), "the key slot came back too");
    }

    @Test
    public void reportingTokenWindowsNeverRefuse() {
        QuotaCheck.Tokens tokens = new QuotaCheck.Tokens(bucket(LimitScope.KEY, "tpm"), 1_000, 600,
                Duration.ofMinutes(1), false);
        QuotaDecision first = decide(at(0), tokens);
        assertEquals(600, first.states().get(0).used());
        assertEquals(400, first.states().get(0).remaining());
        QuotaDecision second = decide(at(1_000), tokens);
        assertTrue(second.admitted());
        assertEquals(1_200, second.states().get(0).used());
        assertEquals(0, second.states().get(0).remaining());
    }

    @Test
    public void blockingTokenWindowsRefuseWhatWouldNotFit() {
        QuotaCheck.Tokens tokens = new QuotaCheck.Tokens(bucket(LimitScope.PLAYGROUND, "tpm"), 1_000, 600,
                Duration.ofMinutes(1), true);
        assertTrue(decide(at(0), tokens).admitted());
        QuotaDecision refused = decide(at(1_000), tokens);
        assertFalse(refused.admitted());
        assertEquals(600, refused.states().get(0).used());
        // Until enough of the 600 has slid out of the next minute: 1,000 − 600 may still count, 2/3 of it.
        assertEquals(Duration.ofMillis(120_000 - 40_099 - 1_000), refused.states().get(0).retryAfter());
        assertTrue(decide(at(2_000), tokens.withTokens(400)).admitted(), "what still fits passes");
    }

    @Test
    public void aBlockingTokenWindowSaysExactlyWhenTheAmountFits() {
        // 349 of 400 used 12 s before the minute ends: 116 more fit only once enough of the 349 has slid out of
        // the next minute, not at its start (T0 is the start of a minute).
        QuotaCheck.Tokens used = new QuotaCheck.Tokens(bucket(LimitScope.PLAYGROUND, "tpm"), 400, 349,
                Duration.ofMinutes(1), true);
        assertTrue(decide(at(48_000), used).admitted());
        QuotaCheck.Tokens more = used.withTokens(116);
        QuotaDecision refused = decide(at(48_000), more);
        assertFalse(refused.admitted());
        Duration wait = refused.states().get(0).retryAfter();
        assertEquals(Duration.ofMillis(12_000 + 60_000 - 48_997), wait);
        assertFalse(decide(at(48_000).plus(wait).minusMillis(1), more).admitted(), "not a millisecond earlier");
        assertTrue(decide(at(48_000).plus(wait), more).admitted(), "then it fits");
    }

    @Test
    public void threeRequestLimitBlocksWithinAMinuteStartACooldown() {
        Bucket scope = bucket(LimitScope.KEY, "rpm");
        QuotaCheck.Requests window = new QuotaCheck.Requests(scope, 1, Duration.ofSeconds(25), scope);
        TrafficDemand demand = new TrafficDemand(List.of(window), List.of(scope), COOLDOWN, null);
        assertTrue(counter.decide(demand, at(-20_000)).admitted());
        assertFalse(counter.decide(demand, at(0)).admitted(), "block 1");
        assertTrue(counter.decide(demand, at(5_000)).admitted());
        assertFalse(counter.decide(demand, at(10_000)).admitted(), "block 2");
        // The third block starts the cooldown at once, and its refusal already says how long it lasts.
        QuotaDecision third = counter.decide(demand, at(20_000));
        assertFalse(third.admitted(), "block 3");
        assertNotNull(third.cooldown());
        assertFalse(third.cooldown().behavioural());
        assertEquals(scope, third.cooldown().scope());
        assertEquals(Duration.ofSeconds(30), third.cooldown().retryAfter(), "the whole cooldown");
        QuotaDecision cooling = counter.decide(demand, at(31_000)); // the window alone would admit it now
        assertFalse(cooling.admitted());
        assertEquals(Duration.ofSeconds(19), cooling.cooldown().retryAfter(), "what is left of it");
        assertFalse(counter.decide(demand, at(49_999)).admitted(), "not a millisecond earlier");
        assertTrue(counter.decide(demand, at(50_000)).admitted(),
                "over when the third refusal said; cooldown refusals were no blocks, and the blocks before it are "
                        + "not counted again");
    }

    @Test
    public void aRefusalByTwoFullWindowsOfOneScopeIsOneBlock() {
        // An audit: with a key's minute and burst windows both full, one refusal counted as two blocks.
        Bucket scope = bucket(LimitScope.KEY, "rpm");
        QuotaCheck.Requests minute = new QuotaCheck.Requests(scope, 1, Duration.ofSeconds(60), scope);
        QuotaCheck.Requests burst = new QuotaCheck.Requests(bucket(LimitScope.KEY, "burst"), 1, TEN_S, scope);
        TrafficDemand demand = new TrafficDemand(List.of(minute, burst), List.of(scope), COOLDOWN, null);
        assertTrue(counter.decide(demand, at(0)).admitted());
        QuotaDecision first = counter.decide(demand, at(1_000));
        assertFalse(first.admitted());
        assertNull(first.cooldown(), "block 1");
        assertNull(counter.decide(demand, at(2_000)).cooldown(), "block 2 — not 3");
        QuotaDecision third = counter.decide(demand, at(3_000));
        assertNotNull(third.cooldown(), "block 3 starts it");
    }

    @Test
    public void blocksSpreadOverMoreThanAMinuteStartNoCooldown() {
        Bucket scope = bucket(LimitScope.KEY_IP, "rpm");
        QuotaCheck.Requests window = new QuotaCheck.Requests(scope, 1, Duration.ofSeconds(25), scope);
        TrafficDemand demand = new TrafficDemand(List.of(window), List.of(scope), COOLDOWN, null);
        assertTrue(counter.decide(demand, at(-10_000)).admitted());
        assertFalse(counter.decide(demand, at(0)).admitted(), "block at 0");
        assertTrue(counter.decide(demand, at(20_000)).admitted());
        assertFalse(counter.decide(demand, at(30_000)).admitted(), "block at 30");
        assertTrue(counter.decide(demand, at(50_000)).admitted());
        assertFalse(counter.decide(demand, at(61_000)).admitted(), "block at 61");
        QuotaDecision next = counter.decide(demand, at(75_000));
        assertNull(next.cooldown());
        assertTrue(next.admitted());
    }

    @Test
    public void onlyRequestBucketsWithACooldownScopeCountAsBlocks() {
        Bucket scope = bucket(LimitScope.KEY, "rpm");
        QuotaCheck.Concurrency cap = new QuotaCheck.Concurrency(bucket(LimitScope.KEY, "inflight"), 1);
        TrafficDemand demand = new TrafficDemand(List.of(cap), List.of(scope), COOLDOWN, null);
        assertTrue(counter.decide(demand, at(0)).admitted());
        for (int i = 1; i <= 5; i++) {
            assertNull(counter.decide(demand, at(i * 1_000)).cooldown());
        }
        assertNull(counter.decide(demand, at(6_000)).cooldown(), "concurrency refusals start no cooldown");
    }

    @Test
    public void manyNearIdenticalRequestsStartABehaviouralCooldown() {
        BehaviourRule rule = new BehaviourRule(3, 100, Duration.ofMinutes(1), Duration.ofSeconds(40));
        Bucket triple = bucket(LimitScope.KEY_IP_MODEL, "calls");
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.KEY, "rpm"), 100,
                Duration.ofMinutes(1), null);
        TrafficDemand same = new TrafficDemand(List.of(window), List.of(), COOLDOWN,
                new BehaviourSample(triple, 42L, false, rule));
        TrafficDemand other = new TrafficDemand(List.of(window), List.of(), COOLDOWN,
                new BehaviourSample(triple, 43L, false, rule));
        assertTrue(counter.decide(same, at(0)).admitted());
        assertTrue(counter.decide(other, at(100)).admitted());
        assertTrue(counter.decide(same, at(200)).admitted());
        assertTrue(counter.decide(same, at(300)).admitted(), "the third one is admitted and trips the cooldown");
        QuotaDecision cooling = counter.decide(other, at(400));
        assertFalse(cooling.admitted());
        assertTrue(cooling.cooldown().behavioural());
        assertEquals(Duration.ofMillis(39_900), cooling.cooldown().retryAfter());
        assertEquals(4, cooling.states().get(0).used(), "the cooldown refusal counted nowhere");
    }

    @Test
    public void manyMinimalRequestsStartABehaviouralCooldown() {
        BehaviourRule rule = new BehaviourRule(100, 3, Duration.ofMinutes(1), Duration.ofSeconds(40));
        Bucket triple = bucket(LimitScope.KEY_IP_MODEL, "calls");
        for (int i = 0; i < 3; i++) {
            TrafficDemand minimal = new TrafficDemand(List.of(), List.of(), COOLDOWN,
                    new BehaviourSample(triple, 1_000L + i, true, rule));
            assertTrue(counter.decide(minimal, at(i)).admitted());
        }
        TrafficDemand varied = new TrafficDemand(List.of(), List.of(), COOLDOWN,
                new BehaviourSample(triple, 7L, false, rule));
        assertTrue(counter.decide(varied, at(10)).cooldown().behavioural());
    }

    @Test
    public void concurrentDecisionsNeverAdmitMoreThanTheLimit() throws Exception {
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.ACCOUNT, "rpm"), 50,
                Duration.ofMinutes(1), null);
        QuotaCheck.Concurrency cap = new QuotaCheck.Concurrency(bucket(LimitScope.ACCOUNT, "inflight"), 30);
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        if (decide(at(i), window, cap).admitted()) {
                            admitted.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(30, admitted.get(), "the 30 slots, none released, bound the admissions");
    }

    @Test
    public void stateReportsWhatIsLeftAndWhenItIsWholeAgain() {
        QuotaCheck.Requests window = new QuotaCheck.Requests(bucket(LimitScope.KEY, "rpm"), 10,
                Duration.ofMinutes(1), null);
        decide(at(0), window);
        QuotaDecision second = decide(at(15_000), window);
        CheckState state = second.states().get(0);
        assertEquals(2, state.used());
        assertEquals(8, state.remaining());
        assertEquals(Duration.ofSeconds(60), state.reset());
        assertEquals(Duration.ZERO, state.retryAfter());
    }
}
