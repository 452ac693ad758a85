package dev.tollgate.domain.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two stores that both admitted a request: the report shows, check by check, the one with less left. */
class QuotaDecisionTest {

    private static final Bucket MINUTE = new Bucket(LimitScope.KEY, "k", "rpm");
    private static final Bucket BURST = new Bucket(LimitScope.KEY_IP, "k|ip", "burst");

    private static CheckState state(Bucket bucket, long limit, long used) {
        return new CheckState(new QuotaCheck.Requests(bucket, limit, Duration.ofMinutes(1), null), used,
                Duration.ZERO, Duration.ofSeconds(30));
    }

    @Test
    void eachCheckTakesTheStateWithLessLeftAndTheLeaseStaysThisDecisions() {
        SlotLease lease = new SlotLease("shared-1", List.of());
        QuotaDecision shared = new QuotaDecision(List.of(state(MINUTE, 600, 500), state(BURST, 3, 1)), null, lease);
        QuotaDecision share = new QuotaDecision(List.of(state(MINUTE, 300, 5), state(BURST, 1, 1)), null,
                SlotLease.NONE);

        QuotaDecision reported = shared.tightenedBy(share);

        assertEquals(100, reported.states().get(0).remaining(), "the shared store has less left of the minute");
        assertEquals(600, reported.states().get(0).check().limit());
        assertEquals(0, reported.states().get(1).remaining(), "the share has none left of the burst");
        assertEquals(1, reported.states().get(1).check().limit());
        assertSame(lease, reported.lease());
    }

    @Test
    void decisionsOfOtherChecksAreNotMixed() {
        QuotaDecision one = new QuotaDecision(List.of(state(MINUTE, 600, 10)), null, SlotLease.NONE);
        QuotaDecision two = new QuotaDecision(List.of(state(MINUTE, 600, 10), state(BURST, 3, 1)), null,
                SlotLease.NONE);
        assertThrows(IllegalArgumentException.class, () -> one.tightenedBy(two));
    }
}
