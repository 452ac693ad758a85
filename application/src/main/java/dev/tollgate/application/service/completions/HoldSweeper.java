package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ReleaseExpiredHoldsUseCase;
import dev.tollgate.application.port.out.BillingLedger;
import java.time.Clock;

/**
 * Service: releases expired holds in batches. Such a request's output is unknown (its process is gone), so it is
 * not charged; its ledger row says {@code expired}.
 */
public final class HoldSweeper implements ReleaseExpiredHoldsUseCase {

    private static final int BATCH = 500;
    private final BillingLedger billing;
    private final Clock clock;

    public HoldSweeper(BillingLedger billing, Clock clock) {
        this.billing = billing;
        this.clock = clock;
    }

    @Override
    public int releaseExpired() {
        int total = 0;
        int released;
        do {
            released = billing.releaseExpired(clock.instant(), BATCH);
            total += released;
        } while (released == BATCH);
        return total;
    }
}
