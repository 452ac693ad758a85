package dev.tollgate.bootstrap;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.PlaygroundLedger;
import dev.tollgate.application.service.completions.ChatCompletionService;
import dev.tollgate.application.service.completions.InterruptedCompletions;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At shutdown, after the grace period for requests in flight: completions still running (long streams) are ended
 * and billed for what they delivered, before billing stops. It depends on both ledgers, so it is destroyed before
 * them and before the connection pool they write through (docs/operations.md, "Running": SIGTERM).
 */
@Context
final class CompletionsShutdown {

    private static final Logger LOG = LoggerFactory.getLogger(CompletionsShutdown.class);

    private final ChatCompletionService completions;
    private final Duration settleWait;

    CompletionsShutdown(ChatCompletionService completions, BillingLedger billing, PlaygroundLedger playground,
            @Value("${tollgate.shutdown.settle-wait:5s}") Duration settleWait) {
        this.completions = completions;
        this.settleWait = settleWait;
    }

    @PreDestroy
    void endRunningCompletions() throws InterruptedException {
        InterruptedCompletions result = completions.interruptRunning(settleWait);
        if (result.ended() == 0) {
            return;
        }
        if (result.unsettled() == 0) {
            LOG.warn("Stopping: ended {} completion(s) still running after the grace period; each was billed for "
                    + "the prompt and what it had delivered", result.ended());
        } else {
            LOG.error("Stopping: ended {} completion(s) still running after the grace period; {} settlement(s) were "
                    + "not written within {} and their holds are released at no charge when their leases run out",
                    result.ended(), result.unsettled(), settleWait);
        }
    }
}
