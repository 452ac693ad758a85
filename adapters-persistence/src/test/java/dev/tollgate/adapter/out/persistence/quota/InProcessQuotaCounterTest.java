package dev.tollgate.adapter.out.persistence.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.application.testing.AbstractQuotaCounterContractTest;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.CooldownRule;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.QuotaCheck;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class InProcessQuotaCounterTest {

    @Nested
    class Contract extends AbstractQuotaCounterContractTest {
        @Override
        protected QuotaCounter counter() {
            return new InProcessQuotaCounter();
        }
    }

    @Test
    void decisionsSweepIdleBucketsAFewAtATime() {
        InProcessQuotaCounter counter = new InProcessQuotaCounter();
        Instant t0 = Instant.parse("2026-05-04T10:00:00Z");
        for (int i = 0; i < 100; i++) {
            Bucket window = new Bucket(LimitScope.IP, "10.0.0." + i, "burst");
            counter.decide(new TrafficDemand(List.of(new QuotaCheck.Requests(window, 10, Duration.ofSeconds(10),
                    null)), List.of(), CooldownRule.DEFAULT, null), t0);
        }
        Bucket busy = new Bucket(LimitScope.KEY, "busy", "rpm");
        TrafficDemand keepBusy = new TrafficDemand(List.of(new QuotaCheck.Requests(busy, 1_000_000,
                Duration.ofMinutes(1), null)), List.of(), CooldownRule.DEFAULT, null);
        // Each decision sweeps two entries of the stripes it holds and two of one more stripe round the ring: the
        // idle buckets of stripes nobody decides about go too, within a few rounds of the ring.
        int rounds = 4 * InProcessQuotaCounter.STRIPES;
        for (int i = 0; i < rounds; i++) {
            counter.decide(keepBusy, t0.plusSeconds(11).plusMillis(i));
        }
        assertEquals(1, counter.states(), "only the busy bucket is left, without a full sweep");
        assertEquals(1, counter.buckets(t0.plusSeconds(11).plusMillis(rounds)));
    }

    @Test
    void decisionsOverSharedSubjectsStayExactAcrossStripes() throws Exception {
        InProcessQuotaCounter counter = new InProcessQuotaCounter();
        Instant t0 = Instant.parse("2026-05-04T10:00:00Z");
        int accounts = 4;
        long accountLimit = 100;
        AtomicLongArray admitted = new AtomicLongArray(accounts);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        int account = (thread + i) % accounts;
                        String key = "key-" + ((thread * 7 + i) % 20);
                        String ip = "10.0.0." + (i % 5);
                        TrafficDemand demand = new TrafficDemand(List.of(
                                new QuotaCheck.Requests(new Bucket(LimitScope.KEY, key, "rpm"), 1_000_000,
                                        Duration.ofMinutes(1), null),
                                new QuotaCheck.Requests(new Bucket(LimitScope.IP, ip, "rpm"), 1_000_000,
                                        Duration.ofMinutes(1), null),
                                new QuotaCheck.Requests(new Bucket(LimitScope.ACCOUNT, "acct-" + account, "rpm"),
                                        accountLimit, Duration.ofMinutes(1), null),
                                new QuotaCheck.Concurrency(new Bucket(LimitScope.KEY, key, "inflight"), 1_000)),
                                List.of(), CooldownRule.DEFAULT, null);
                        QuotaDecision decision = counter.decide(demand, t0.plusMillis(i));
                        if (decision.admitted()) {
                            admitted.incrementAndGet(account);
                            counter.release(decision.lease(), t0.plusMillis(i));
                        }
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get(30, TimeUnit.SECONDS); // decisions lock their stripes in one order: none waits forever
            }
        } finally {
            pool.shutdownNow();
        }
        for (int a = 0; a < accounts; a++) {
            assertEquals(accountLimit, admitted.get(a), "account " + a + " admitted exactly its limit");
        }
    }

    @Test
    void idleBucketsAreForgottenButHeldSlotsAreNot() throws InterruptedException {
        InProcessQuotaCounter counter = new InProcessQuotaCounter();
        Bucket window = new Bucket(LimitScope.KEY, "k", "burst");
        Bucket slot = new Bucket(LimitScope.KEY, "k", "inflight");
        TrafficDemand demand = new TrafficDemand(List.of(
                new QuotaCheck.Requests(window, 10, Duration.ofMillis(50), null),
                new QuotaCheck.Concurrency(slot, 5)), List.of(), CooldownRule.DEFAULT, null);
        QuotaDecision held = counter.decide(demand, Instant.now());
        for (int i = 0; i < 3; i++) {
            counter.release(counter.decide(demand, Instant.now()).lease(), Instant.now());
        }
        assertEquals(2, counter.buckets(Instant.now()));

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (counter.buckets(Instant.now()) > 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, counter.buckets(Instant.now()), "the request window was forgotten once idle for its window");
        assertEquals(1, counter.inFlight(slot), "the slot in use was kept");

        counter.release(held.lease(), Instant.now());
        assertEquals(0, counter.inFlight(slot));
        assertEquals(0, counter.buckets(Instant.now()), "a slot bucket with nothing in flight is dropped at once");
        assertTrue(counter.decide(demand, Instant.now()).admitted());
    }

    @Test
    void decidingWithinThisStoreAsksTheOtherOnlyWhenItPassesHereAndCountsOnlyWhatTheOtherAdmits() {
        InProcessQuotaCounter here = new InProcessQuotaCounter();
        InProcessQuotaCounter other = new InProcessQuotaCounter();
        Instant t0 = Instant.parse("2026-05-04T10:00:00Z");
        Bucket window = new Bucket(LimitScope.KEY, "k", "rpm");
        Bucket slots = new Bucket(LimitScope.KEY, "k", "inflight");
        java.util.function.LongFunction<TrafficDemand> demand = limit -> new TrafficDemand(List.of(
                new QuotaCheck.Requests(window, limit, Duration.ofMinutes(1), null),
                new QuotaCheck.Concurrency(slots, 10)), List.of(), CooldownRule.DEFAULT, null);
        int[] asked = {0};

        InProcessQuotaCounter.Within admitted = here.decideWithin(demand.apply(2), t0, () -> {
            asked[0]++;
            return other.decide(demand.apply(100), t0);
        });
        assertTrue(admitted.decision().admitted());
        assertEquals(1, admitted.decision().states().get(0).remaining(),
                "the headers report the share here (1 of 2 left), not the other store's 99 of 100");
        assertEquals(2, admitted.decision().states().get(0).check().limit());
        assertEquals(9, admitted.decision().states().get(1).remaining(), "a tie: either, both have 9 slots left");
        assertEquals(1, here.inFlight(slots), "admitted there: counted here, its slot taken");
        assertEquals(List.of(slots), admitted.mirror().slots());

        other.decide(demand.apply(100), t0); // the other store fills up to 2 ...
        InProcessQuotaCounter.Within refusedThere = here.decideWithin(demand.apply(2), t0,
                () -> other.decide(demand.apply(2), t0)); // ... and refuses
        assertFalse(refusedThere.decision().admitted());
        assertTrue(refusedThere.mirror().isEmpty());
        assertEquals(1, here.inFlight(slots), "refused there: nothing counted here");
        assertEquals(1, here.decide(demand.apply(100), t0).states().get(0).used() - 1, "one admission in the window");

        InProcessQuotaCounter.Within refusedHere = here.decideWithin(demand.apply(2), t0, () -> {
            asked[0]++;
            return other.decide(demand.apply(100), t0);
        });
        assertFalse(refusedHere.decision().admitted(), "2 of 2 here");
        assertEquals(1, asked[0], "the other store is not asked for a request this one refuses");

        assertThrows(QuotaCounter.Unavailable.class, () -> here.decideWithin(demand.apply(100), t0, () -> {
            throw new QuotaCounter.Unavailable("down", null);
        }));
        assertEquals(2, here.inFlight(slots), "a failing other store leaves this one as it was");
    }
}
