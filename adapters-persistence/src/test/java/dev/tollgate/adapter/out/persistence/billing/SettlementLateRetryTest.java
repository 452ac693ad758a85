package dev.tollgate.adapter.out.persistence.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A settlement the database refused for longer than its first minute of tries goes on being tried every 10 s while
 * its hold's lease leaves room for the try and 30 s more (an audit, 2026-11-29: an outage of 95 s left served
 * requests unbilled); a hold whose lease is not known, or about to lapse, is not waited for.
 */
class SettlementLateRetryTest {

    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    @Test
    void triedEveryTenSecondsWhileTheLeaseLeavesRoom() {
        assertEquals(10_000, JdbcBillingLedger.lateRetryWait(NOW, NOW.plusSeconds(14 * 60)));
        assertEquals(10_000, JdbcBillingLedger.lateRetryWait(NOW, NOW.plusSeconds(41)));
    }

    @Test
    void notWhenTheLeaseIsAboutToRunOutOrUnknown() {
        assertEquals(-1, JdbcBillingLedger.lateRetryWait(NOW, NOW.plusSeconds(40)), "the sweep would come first");
        assertEquals(-1, JdbcBillingLedger.lateRetryWait(NOW, NOW.minusSeconds(1)));
        assertEquals(-1, JdbcBillingLedger.lateRetryWait(NOW, null), "a settlement that does not know its hold's lease (a sweep's release)");
    }
}
