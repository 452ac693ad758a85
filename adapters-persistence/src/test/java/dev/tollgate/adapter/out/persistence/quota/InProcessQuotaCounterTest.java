package dev.tollgate.adapter.out.persistence.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.List;
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
        for (int i = 0; i < 100; i++) {
            counter.decide(keepBusy, t0.plusSeconds(11).plusMillis(i)); // each decision sweeps two of the idle
        }
        assertEquals(1, counter.buckets(t0.plusSeconds(11).plusMillis(100)), "only the busy bucket is left");
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
}
