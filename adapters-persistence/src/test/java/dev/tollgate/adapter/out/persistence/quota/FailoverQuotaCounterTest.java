package dev.tollgate.adapter.out.persistence.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.BehaviourRule;
import dev.tollgate.domain.quota.BehaviourSample;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.CooldownRule;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.QuotaCheck;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.StoreFailurePolicy;
import dev.tollgate.domain.quota.TrafficDemand;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The failure policy in front of a shared store, with a shared store that can be switched off (the real Redis
 * outage is measured in the G9 run of bench/).
 */
class FailoverQuotaCounterTest {

    private static final Instant NOW = Instant.parse("2026-05-04T10:00:00Z");
    private static final Bucket WINDOW = new Bucket(LimitScope.KEY, "k", "rpm");
    private static final Bucket SLOTS = new Bucket(LimitScope.KEY, "k", "inflight");
    private static final Bucket IPS = new Bucket(LimitScope.KEY, "k", "ips");

    /** A shared store that answers like the real rules until it is switched off. */
    private static final class SwitchableStore implements SharedQuotaStore {
        final InProcessQuotaCounter inside = new InProcessQuotaCounter();
        volatile boolean down;
        int calls;

        @Override
        public QuotaDecision decide(TrafficDemand demand, Instant now) {
            calls++;
            if (down) {
                throw new Unavailable("redis://127.0.0.1:6379 refused the connection", null);
            }
            return inside.decide(demand, now);
        }

        @Override
        public void release(SlotLease lease, Instant now) {
            if (down) {
                throw new Unavailable("down", null);
            }
            inside.release(lease, now);
        }

        @Override
        public List<SlotLease> reinstate(List<SlotLease> adopted) {
            if (down || failReinstate) {
                throw new Unavailable("down", null);
            }
            reinstated++;
            return adopted.stream().map(lease -> inside.record(new TrafficDemand(lease.slots().stream()
                    .map(slot -> (QuotaCheck) new QuotaCheck.Concurrency(slot, Long.MAX_VALUE)).toList(), List.of(),
                    CooldownRule.DEFAULT, null), NOW)).toList();
        }

        @Override
        public void replay(List<Entry> admissions) {
            if (down || failReinstate) {
                throw new Unavailable("down", null);
            }
            for (Entry entry : admissions) {
                replayedEntries.add(entry);
                QuotaCheck check = entry.bucket().equals(WINDOW)
                        ? new QuotaCheck.Requests(entry.bucket(), Long.MAX_VALUE, entry.window(), null)
                        : new QuotaCheck.Distinct(entry.bucket(), entry.member(), Long.MAX_VALUE, entry.window());
                inside.record(new TrafficDemand(List.of(check), List.of(), CooldownRule.DEFAULT, null), entry.at());
            }
        }

        @Override
        public void replayCooldowns(List<Cooldown> cooldowns, Instant now) {
            if (down || failReinstate) {
                throw new Unavailable("down", null);
            }
            replayedCooldowns.addAll(cooldowns);
        }

        int reinstated;
        volatile boolean failReinstate;
        final List<Entry> replayedEntries = new java.util.ArrayList<>();
        final List<Cooldown> replayedCooldowns = new java.util.ArrayList<>();
    }

    private final SwitchableStore shared = new SwitchableStore();
    private final InProcessQuotaCounter local = new InProcessQuotaCounter();

    /** The only instance, asking the shared store again on every request while it is down. */
    private FailoverQuotaCounter oneInstanceRetryingAtOnce() {
        return new FailoverQuotaCounter(shared, local, StoreFailurePolicy.LOCAL_SHARE, () -> 1, AloneInstances.NONE,
                Duration.ZERO);
    }

    private static TrafficDemand demand(long limit, long slots) {
        return new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, limit, Duration.ofMinutes(1), null),
                new QuotaCheck.Concurrency(SLOTS, slots)), List.of(), CooldownRule.DEFAULT, null);
    }

    @Test
    void whileTheSharedStoreAnswersItDecidesEverything() {
        FailoverQuotaCounter counter = new FailoverQuotaCounter(shared, local, StoreFailurePolicy.LOCAL_SHARE,
                () -> 2, AloneInstances.NONE, Duration.ofSeconds(1));
        QuotaDecision decision = counter.decide(demand(10, 10), NOW);
        assertTrue(decision.admitted());
        assertEquals(1, shared.inside.inFlight(SLOTS));
        counter.release(decision.lease(), NOW);
        assertEquals(0, shared.inside.inFlight(SLOTS));
        assertFalse(counter.sharedStoreDown());
    }

    @Test
    void whenItIsDownEachInstanceAdmitsItsShareAndNoMore() {
        FailoverQuotaCounter counter = new FailoverQuotaCounter(shared, local, StoreFailurePolicy.LOCAL_SHARE,
                () -> 4, AloneInstances.NONE, Duration.ofSeconds(1));
        shared.down = true;
        int admitted = 0;
        for (int i = 0; i < 20; i++) {
            if (counter.decide(demand(10, 100), NOW).admitted()) {
                admitted++;
            }
        }
        assertEquals(2, admitted, "10 ÷ 4 instances, rounded down");
        assertTrue(counter.sharedStoreDown());
        assertEquals(1, shared.calls, "the store is asked again only after the retry interval");
    }

    @Test
    void slotsTakenLocallyCountInTheSharedStoreWhenItReturnsAndGoBackInBoth() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        QuotaDecision local1 = counter.decide(demand(10, 2), NOW);
        assertTrue(local1.admitted());
        assertEquals(1, local.inFlight(SLOTS));
        shared.down = false;
        QuotaDecision shared1 = counter.decide(demand(10, 2), NOW);
        assertTrue(shared1.admitted());
        assertEquals(1, shared.reinstated, "told once what still runs");
        assertEquals(2, shared.inside.inFlight(SLOTS), "the request admitted alone during the outage counts there");
        assertFalse(counter.decide(demand(10, 2), NOW).admitted(), "the cap of 2 holds for both together");
        assertFalse(counter.sharedStoreDown());
        counter.release(local1.lease(), NOW);
        assertEquals(1, local.inFlight(SLOTS), "what is left here is the mirror of the request admitted there");
        assertEquals(1, shared.inside.inFlight(SLOTS), "its slot is given back in the shared store too");
        counter.release(shared1.lease(), NOW);
        assertEquals(0, local.inFlight(SLOTS));
        assertEquals(0, shared.inside.inFlight(SLOTS));
        counter.decide(demand(10, 2), NOW);
        assertEquals(1, shared.reinstated, "nothing to tell while the store answers");
    }

    @Test
    void aRequestThatEndsDuringTheOutageIsNotAdopted() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        counter.release(counter.decide(demand(10, 2), NOW).lease(), NOW);
        shared.down = false;
        counter.decide(demand(10, 2), NOW);
        assertEquals(1, shared.inside.inFlight(SLOTS), "only the request admitted now");
    }

    @Test
    void everyRequestStillRunningFromTheOutageIsAdopted() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        QuotaDecision alone = counter.decide(demand(10, 5), NOW);
        assertTrue(counter.decide(demand(10, 5), NOW).admitted(), "still local");
        assertTrue(counter.sharedStoreDown());
        assertEquals(2, local.inFlight(SLOTS));
        shared.down = false;
        counter.decide(demand(10, 5), NOW);
        assertEquals(3, shared.inside.inFlight(SLOTS), "both local requests adopted, plus the new one");
        counter.release(alone.lease(), NOW);
        assertEquals(2, shared.inside.inFlight(SLOTS));
    }

    /**
     * While one caller finds out whether the shared store is back (it may wait up to the store's timeout), the
     * others decide alone at once instead of queueing behind it, each for a try of its own (an audit saw waits of
     * up to 4 s at 60 requests a second); what they admit meanwhile is handed over before the store decides alone.
     */
    @Test
    void whileOneCallerFindsOutWhetherTheStoreIsBackTheOthersDecideAloneAtOnce() throws Exception {
        java.util.concurrent.CountDownLatch inHandOver = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch letGo = new java.util.concurrent.CountDownLatch(1);
        SharedQuotaStore slowToAnswer = new SharedQuotaStore() {
            @Override
            public QuotaDecision decide(TrafficDemand demand, Instant now) {
                return shared.decide(demand, now);
            }

            @Override
            public void release(SlotLease lease, Instant now) {
                shared.release(lease, now);
            }

            @Override
            public List<SlotLease> reinstate(List<SlotLease> adopted) {
                if (inHandOver.getCount() > 0 && !shared.down) {
                    inHandOver.countDown();
                    try {
                        letGo.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return shared.reinstate(adopted);
            }

            @Override
            public void replay(List<Entry> admissions) {
                shared.replay(admissions);
            }

            @Override
            public void replayCooldowns(List<Cooldown> cooldowns, Instant now) {
                shared.replayCooldowns(cooldowns, now);
            }
        };
        FailoverQuotaCounter counter = new FailoverQuotaCounter(slowToAnswer, local, StoreFailurePolicy.LOCAL_SHARE,
                () -> 1, AloneInstances.NONE, Duration.ZERO);
        shared.down = true;
        assertTrue(counter.decide(demand(10, 5), NOW).admitted(), "alone");
        shared.down = false;
        java.util.concurrent.CompletableFuture<QuotaDecision> finding = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> counter.decide(demand(10, 5), NOW));
        assertTrue(inHandOver.await(5, java.util.concurrent.TimeUnit.SECONDS));

        long started = System.nanoTime();
        QuotaDecision meanwhile = counter.decide(demand(10, 5), NOW);
        assertTrue(meanwhile.admitted(), "decided alone");
        assertTrue(System.nanoTime() - started < java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500),
                "without waiting for the caller that asks the store");
        assertEquals(2, local.inFlight(SLOTS));

        letGo.countDown();
        assertTrue(finding.get(5, java.util.concurrent.TimeUnit.SECONDS).admitted());
        assertFalse(counter.sharedStoreDown());
        assertEquals(3, shared.inside.inFlight(SLOTS),
                "the request admitted before the hand-over began, the one admitted during it, and the new one");
        assertEquals(2, shared.replayedEntries.stream().filter(e -> e.bucket().equals(WINDOW)).count(),
                "both admissions made alone count in the shared window");
        counter.release(meanwhile.lease(), NOW);
        assertEquals(2, shared.inside.inFlight(SLOTS), "handed over in the second pass, given back there too");
    }

    @Test
    void aRequestHandedOverAfterOneOutageIsNotHandedOverAgainAfterTheNext() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        QuotaDecision alone = counter.decide(demand(10, 5), NOW);
        shared.down = false;
        counter.decide(demand(10, 5), NOW);
        assertEquals(2, shared.inside.inFlight(SLOTS));
        shared.down = true;
        counter.decide(demand(10, 5), NOW);
        shared.down = false;
        counter.decide(demand(10, 5), NOW);
        assertEquals(2, shared.reinstated);
        assertEquals(4, shared.inside.inFlight(SLOTS), "the second outage's request and the new one, not a copy");
        counter.release(alone.lease(), NOW);
        assertEquals(3, shared.inside.inFlight(SLOTS));
    }

    @Test
    void whatWasAdmittedAloneCountsInTheSharedWindowsWhenItReturns() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        TrafficDemand demand = new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, 4, Duration.ofMinutes(1),
                null), new QuotaCheck.Distinct(IPS, "192.0.2.1", 10, Duration.ofHours(1))), List.of(),
                CooldownRule.DEFAULT, null);
        assertTrue(counter.decide(demand, NOW).admitted(), "through the shared store");
        shared.down = true;
        for (int i = 1; i <= 3; i++) {
            assertTrue(counter.decide(demand, NOW.plusSeconds(i)).admitted(), "alone, " + i);
        }
        assertFalse(counter.decide(demand, NOW.plusSeconds(4)).admitted(), "alone, the window is full");
        shared.down = false;
        assertFalse(counter.decide(demand, NOW.plusSeconds(5)).admitted(),
                "the shared window holds the one it admitted and the three admitted alone");
        assertEquals(4, shared.replayedEntries.size(), "three window entries and the one distinct member");
        assertTrue(counter.decide(demand, NOW.plusSeconds(61)).admitted(), "the window moved on");
        assertEquals(4, shared.replayedEntries.size(), "told once");
    }

    @Test
    void aCooldownStartedAloneIsHandedToTheSharedStoreWhenItReturns() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        Bucket scope = new Bucket(LimitScope.KEY, "k", "scope");
        CooldownRule oneBlock = new CooldownRule(1, Duration.ofMinutes(1), Duration.ofSeconds(30));
        TrafficDemand demand = new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, 1, Duration.ofMinutes(1),
                scope)), List.of(scope), oneBlock, null);
        shared.down = true;
        assertTrue(counter.decide(demand, NOW).admitted(), "alone");
        QuotaDecision blocked = counter.decide(demand, NOW.plusSeconds(1));
        assertFalse(blocked.admitted(), "the window is full: a block");
        assertNotNull(blocked.cooldown(), "one block starts the cooldown here, at once");
        assertNotNull(counter.decide(demand, NOW.plusSeconds(2)).cooldown());
        shared.down = false;
        counter.decide(demand, NOW.plusSeconds(12));
        assertEquals(List.of(new SharedQuotaStore.Cooldown(scope.withRule("cooldown").key(), NOW.plusSeconds(31))),
                shared.replayedCooldowns, "told with its end");
    }

    @Test
    void aCooldownTheSharedStoreRefusedWithStillRefusesWhenThisInstanceDecidesAlone() {
        // An audit: a client told "paused for 30 s" by the shared store got in at once when the store stopped.
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        Bucket scope = new Bucket(LimitScope.KEY, "k", "scope");
        CooldownRule oneBlock = new CooldownRule(1, Duration.ofMinutes(1), Duration.ofSeconds(30));
        TrafficDemand demand = new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, 1, Duration.ofSeconds(10),
                scope)), List.of(scope), oneBlock, null);
        assertTrue(counter.decide(demand, NOW).admitted());
        QuotaDecision started = counter.decide(demand, NOW.plusSeconds(1));
        assertNotNull(started.cooldown(), "the shared store's block starts the cooldown there");
        shared.down = true;
        QuotaDecision alone = counter.decide(demand, NOW.plusSeconds(12)); // the 10 s window is empty again
        assertFalse(alone.admitted(), "still cooling down here");
        assertEquals(Duration.ofSeconds(19), alone.cooldown().retryAfter(), "the rest of it: 31 s − 12 s");
        assertTrue(counter.decide(demand, NOW.plusSeconds(31)).admitted(), "and no longer");
    }

    @Test
    void aBehaviouralCooldownTheSharedStoreRefusedWithStillRefusesWhenThisInstanceDecidesAlone() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        Bucket triple = new Bucket(LimitScope.KEY_IP, "k|203.0.113.1|m", "behaviour-scope");
        BehaviourSample same = new BehaviourSample(triple, 42L, false,
                new BehaviourRule(2, 100, Duration.ofMinutes(1), Duration.ofSeconds(20)));
        TrafficDemand demand = new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, 100, Duration.ofMinutes(1),
                null)), List.of(), CooldownRule.DEFAULT, same);
        assertTrue(counter.decide(demand, NOW).admitted());
        assertTrue(counter.decide(demand, NOW.plusSeconds(1)).admitted(), "the second identical one trips it");
        QuotaDecision cooling = counter.decide(demand, NOW.plusSeconds(2));
        assertTrue(cooling.cooldown() != null && cooling.cooldown().behavioural(), "refused by the shared store");
        shared.down = true;
        QuotaDecision alone = counter.decide(demand, NOW.plusSeconds(5));
        assertFalse(alone.admitted(), "still cooling down here");
        assertEquals(Duration.ofSeconds(16), alone.cooldown().retryAfter(), "until 21 s");
    }

    @Test
    void admissionsThatLeftTheirWindowDuringTheOutageAreNotReplayed() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        assertTrue(counter.decide(demand(4, 100), NOW).admitted());
        assertTrue(counter.decide(demand(4, 100), NOW.plusSeconds(70)).admitted());
        shared.down = false;
        counter.decide(demand(4, 100), NOW.plusSeconds(80));
        assertEquals(1, shared.replayedEntries.stream().filter(e -> e.bucket().equals(WINDOW)).count(),
                "only the admission still inside its minute");
    }

    @Test
    void aSharedStoreThatFailsWhileBeingToldWhatRunsStaysDown() {
        FailoverQuotaCounter counter = oneInstanceRetryingAtOnce();
        shared.down = true;
        counter.decide(demand(10, 5), NOW);
        shared.down = false;
        shared.failReinstate = true;
        assertTrue(counter.decide(demand(10, 5), NOW).admitted());
        assertTrue(counter.sharedStoreDown(), "not shared again before it knows what runs");
        assertEquals(0, shared.inside.inFlight(SLOTS), "nothing decided there");
        assertEquals(2, local.inFlight(SLOTS));
        shared.failReinstate = false;
        counter.decide(demand(10, 5), NOW);
        assertFalse(counter.sharedStoreDown());
        assertEquals(3, shared.inside.inFlight(SLOTS));
    }

    @Test
    void aCheckThatFailsClosedRefusesTheRequestAsUnavailable() {
        StoreFailurePolicy closedSlots = new StoreFailurePolicy(StoreFailurePolicy.Mode.LOCAL,
                StoreFailurePolicy.Mode.CLOSED, StoreFailurePolicy.Mode.LOCAL, StoreFailurePolicy.Mode.LOCAL,
                StoreFailurePolicy.Mode.LOCAL);
        FailoverQuotaCounter counter = new FailoverQuotaCounter(shared, local, closedSlots, () -> 1,
                AloneInstances.NONE, Duration.ofSeconds(1));
        shared.down = true;
        assertThrows(QuotaCounter.Unavailable.class, () -> counter.decide(demand(10, 5), NOW));
        assertThrows(QuotaCounter.Unavailable.class, () -> counter.decide(demand(10, 5), NOW));
        TrafficDemand noSlots = new TrafficDemand(List.of(new QuotaCheck.Requests(WINDOW, 10, Duration.ofMinutes(1),
                null)), List.of(), CooldownRule.DEFAULT, null);
        assertTrue(counter.decide(noSlots, NOW).admitted(), "a request without slots follows the other policies");
    }

    @Test
    void anInstanceThatUsedItsShareThroughTheSharedStoreAdmitsNothingMoreAlone() {
        FailoverQuotaCounter counter = new FailoverQuotaCounter(shared, local, StoreFailurePolicy.LOCAL_SHARE,
                () -> 2, AloneInstances.NONE, Duration.ofSeconds(1));
        for (int i = 0; i < 5; i++) {
            assertTrue(counter.decide(demand(10, 100), NOW.plusMillis(i)).admitted(), "shared store, request " + i);
        }
        shared.down = true;
        assertFalse(counter.decide(demand(10, 100), NOW.plusMillis(10)).admitted(),
                "the 5 admitted through Redis already fill this instance's share of 10 ÷ 2");
    }

    @Test
    void slotsHeldThroughTheSharedStoreCountAgainstTheLocalShare() {
        FailoverQuotaCounter counter = new FailoverQuotaCounter(shared, local, StoreFailurePolicy.LOCAL_SHARE,
                () -> 2, AloneInstances.NONE, Duration.ZERO);
        QuotaDecision first = counter.decide(demand(100, 4), NOW);
        QuotaDecision second = counter.decide(demand(100, 4), NOW);
        assertTrue(first.admitted() && second.admitted());
        assertEquals(2, local.inFlight(SLOTS), "mirrored");
        shared.down = true;
        assertFalse(counter.decide(demand(100, 4), NOW).admitted(), "4 ÷ 2 slots are already held");
        shared.down = false;
        counter.release(first.lease(), NOW);
        assertEquals(1, local.inFlight(SLOTS), "the mirror went back with the shared slot");
        assertEquals(1, shared.inside.inFlight(SLOTS));
        shared.down = true;
        QuotaDecision alone = counter.decide(demand(100, 4), NOW);
        assertTrue(alone.admitted(), "one of this instance's two slots is free again");
        counter.release(alone.lease(), NOW);
        assertThrows(QuotaCounter.Unavailable.class, () -> counter.release(second.lease(), NOW));
        assertEquals(0, local.inFlight(SLOTS), "the mirror goes back even when the shared store cannot be told");
    }

    /** One instance's way to the common shared store, which it alone may lose. */
    private static final class Route implements SharedQuotaStore {
        final SwitchableStore common;
        volatile boolean down;

        Route(SwitchableStore common) {
            this.common = common;
        }

        private void reachable() {
            if (down) {
                throw new Unavailable("redis://127.0.0.1:6379 timed out", null);
            }
        }

        @Override
        public QuotaDecision decide(TrafficDemand demand, Instant now) {
            reachable();
            return common.decide(demand, now);
        }

        @Override
        public void release(SlotLease lease, Instant now) {
            reachable();
            common.release(lease, now);
        }

        @Override
        public List<SlotLease> reinstate(List<SlotLease> adopted) {
            reachable();
            return common.reinstate(adopted);
        }

        @Override
        public void replay(List<Entry> admissions) {
            reachable();
            common.replay(admissions);
        }

        @Override
        public void replayCooldowns(List<Cooldown> cooldowns, Instant now) {
            reachable();
            common.replayCooldowns(cooldowns, now);
        }
    }

    /** What the instances tell each other (PostgreSQL's limits_alone in the gateway), told at once. */
    private static final class Peers {
        final java.util.Set<String> alone = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();

        AloneInstances of(String instance) {
            return new AloneInstances() {
                @Override
                public boolean othersAlone() {
                    return alone.stream().anyMatch(other -> !other.equals(instance));
                }

                @Override
                public void alone(boolean isAlone) {
                    told.add(instance + (isAlone ? " alone" : " shares"));
                    if (isAlone) {
                        alone.add(instance);
                    } else {
                        alone.remove(instance);
                    }
                }
            };
        }
    }

    private final Peers peers = new Peers();
    private final Route routeA = new Route(shared);
    private final Route routeB = new Route(shared);

    private FailoverQuotaCounter instance(String name, Route route) {
        return new FailoverQuotaCounter(route, new InProcessQuotaCounter(), StoreFailurePolicy.LOCAL_SHARE, () -> 2,
                peers.of(name), Duration.ZERO);
    }

    private static int admitted(FailoverQuotaCounter counter, TrafficDemand demand, Instant at, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            if (counter.decide(demand, at).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void anInstanceBackBeforeTheOtherKeepsToItsShareUntilTheOtherHandsOver() {
        FailoverQuotaCounter a = instance("a", routeA);
        FailoverQuotaCounter b = instance("b", routeB);
        routeA.down = true;
        routeB.down = true;
        assertEquals(10, admitted(a, demand(20, 1000), NOW, 40), "a alone: its share of 20");
        assertEquals(10, admitted(b, demand(20, 1000), NOW, 40), "b alone: its share of 20");
        routeA.down = false;
        assertEquals(0, admitted(a, demand(20, 1000), NOW.plusSeconds(1), 40),
                "a reaches the shared store again, which holds only a's 10: b still admits alone, so a keeps to its "
                        + "share, full already (without it: 10 more, 30 in a window of 20)");
        routeB.down = false;
        assertEquals(0, admitted(b, demand(20, 1000), NOW.plusSeconds(2), 40), "b handed over its 10: 20 of 20");
        assertEquals(0, admitted(a, demand(20, 1000), NOW.plusSeconds(2), 40));
        QuotaDecision refused = shared.inside.decide(demand(20, 1000), NOW.plusSeconds(2));
        assertFalse(refused.admitted());
        assertEquals(20, refused.states().get(0).used(), "the shared window counts all 20");
        assertEquals(List.of("a alone", "b alone", "a shares", "b shares"), peers.told);
    }

    @Test
    void whileOnlyOneInstanceLosesTheSharedStoreBothKeepToTheirShares() {
        FailoverQuotaCounter a = instance("a", routeA);
        FailoverQuotaCounter b = instance("b", routeB);
        routeB.down = true;
        assertEquals(10, admitted(b, demand(20, 1000), NOW, 40), "b alone: its share");
        int callsBefore = shared.calls;
        assertEquals(10, admitted(a, demand(20, 1000), NOW, 40),
                "a through the shared store, which has room for 20, but only its share while b is alone");
        assertEquals(callsBefore + 10, shared.calls, "a request a's share refuses is not sent to the shared store");
        routeB.down = false;
        assertEquals(0, admitted(b, demand(20, 1000), NOW.plusSeconds(1), 40), "20 of 20 once b handed over");
        assertTrue(peers.alone.isEmpty());
    }

    @Test
    void onceNoInstanceIsAloneTheSharedStoreAloneDecidesAgain() {
        FailoverQuotaCounter a = instance("a", routeA);
        FailoverQuotaCounter b = instance("b", routeB);
        routeB.down = true;
        assertEquals(1, admitted(b, demand(20, 1000), NOW, 1));
        assertEquals(10, admitted(a, demand(20, 1000), NOW, 40), "a's share while b is alone");
        routeB.down = false;
        assertTrue(b.decide(demand(20, 1000), NOW).admitted(), "b shares again: the shared store holds a's 10, b's 1");
        assertEquals(8, admitted(a, demand(20, 1000), NOW, 40), "a beyond its share now, up to the limit: 10 + 2 + 8");
    }
}
