package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompleteChatUseCase;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.completion.ChatRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Service: a chat completion with exact prepaid billing (hold → settle → release). Before anything goes upstream
 * the request's maximum cost is held against the balance and the key's limit in one atomic step; the request is
 * then served by the model's providers in fallback order ({@link CompletionRun}) and settled exactly once.
 */
public final class ChatCompletionService implements CompleteChatUseCase {

    private final CompletionLauncher launcher;
    private final TrafficGuard traffic;

    public ChatCompletionService(ListModelsUseCase models, ModelProviders providers, TokenCounter tokens,
            BillingLedger billing, Clock clock, ScheduledExecutorService timers, Executor blocking,
            CompletionSettings settings, TrafficGuard traffic) {
        this.launcher = new CompletionLauncher(models, providers, tokens, billing, clock, timers, blocking, settings);
        this.traffic = traffic;
    }

    CompletionLauncher launcher() {
        return launcher;
    }

    /**
     * For the process's shutdown, once the grace period for requests in flight is over and before billing stops:
     * ends every completion still running — here and on the playground, which shares the launcher — and settles
     * each with the prompt and what it delivered, as for a failure mid-stream, rather than leaving its hold to
     * expire unbilled. Waits up to {@code wait} for the settlements to be written.
     */
    public InterruptedCompletions interruptRunning(Duration wait) throws InterruptedException {
        return launcher.interruptRunning(wait);
    }

    @Override
    public RunningCompletion start(ApiKeyPrincipal principal, ChatRequest request, String requestId,
            TrafficOrigin origin, CompletionObserver observer) {
        CompletionLauncher.Prepared prepared = launcher.prepare(request, Integer.MAX_VALUE, "");
        // §8.1: the traffic limits decide before any money is held; a refusal holds nothing and counts nowhere.
        TrafficGuard.Ticket ticket = traffic.admitCompletion(principal, origin, prepared.shape());
        return launcher.launch(prepared, requestId, ticket, new CompletionLauncher.AccountPays(principal), observer);
    }
}
