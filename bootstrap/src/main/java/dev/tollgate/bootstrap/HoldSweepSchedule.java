package dev.tollgate.bootstrap;

import dev.tollgate.application.port.in.completions.ReleaseExpiredHoldsUseCase;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the hold sweeper on every instance; concurrent sweeps skip each other's rows (SKIP LOCKED). */
@Singleton
final class HoldSweepSchedule {

    private static final Logger LOG = LoggerFactory.getLogger(HoldSweepSchedule.class);
    private final ReleaseExpiredHoldsUseCase sweeper;

    HoldSweepSchedule(ReleaseExpiredHoldsUseCase sweeper) {
        this.sweeper = sweeper;
    }

    @Scheduled(fixedDelay = "${tollgate.completions.sweep-interval:5s}", initialDelay = "5s")
    void sweep() {
        try {
            int released = sweeper.releaseExpired();
            if (released > 0) {
                LOG.warn("Released {} holds whose requests outlived their lease", released);
            }
        } catch (RuntimeException e) {
            LOG.warn("Hold sweep failed: {}", e.getMessage());
        }
    }
}
