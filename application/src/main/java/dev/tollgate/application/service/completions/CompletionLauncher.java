package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.ClientAnsweredException;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.completions.CatalogUnavailableException;
import dev.tollgate.application.port.in.completions.UnsupportedCapabilityException;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.PlaygroundLedger;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.billing.Pricing;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.completion.ContextLengthExceeded;
import dev.tollgate.domain.quota.PromptFingerprint;
import dev.tollgate.domain.quota.TrafficRules;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * The steps every completion shares, on {@code /v1} and on the playground: the model and the routes that can serve
 * the request, the token estimate and output allowance, the maximum cost; then — once the traffic limits admitted
 * it — the payer's hold and the run. Whatever happens before the run starts, the traffic ticket is given back.
 */
final class CompletionLauncher {

    /** Who pays: the caller's account (prepaid hold, then settlement), or the operator (playground ledger). */
    sealed interface Payer {
    }

    record AccountPays(ApiKeyPrincipal principal) implements Payer {
    }

    record OperatorPays(PlaygroundLedger ledger) implements Payer {
    }

    /** A request checked against its model, before the traffic limits. */
    record Prepared(ChatRequest request, CatalogModel model, List<ProviderRoute> routes, long promptTokens,
            int maxTokens, Usd maximumCost) {

        TrafficRules.Shape shape() {
            return new TrafficRules.Shape(model.id().value(), promptTokens + maxTokens,
                    PromptFingerprint.of(request.messages()), request.maxTokens());
        }
    }

    private final ListModelsUseCase models;
    private final ModelProviders providers;
    private final TokenCounter tokens;
    private final BillingLedger billing;
    private final Clock clock;
    private final ScheduledExecutorService timers;
    private final Executor blocking;
    private final CompletionSettings settings;
    /** Runs not settled yet, by request id: what {@link #interruptRunning} ends when the process stops. */
    private final Map<String, CompletionRun> unsettled = new ConcurrentHashMap<>();

    CompletionLauncher(ListModelsUseCase models, ModelProviders providers, TokenCounter tokens, BillingLedger billing,
            Clock clock, ScheduledExecutorService timers, Executor blocking, CompletionSettings settings) {
        this.models = models;
        this.providers = providers;
        this.tokens = tokens;
        this.billing = billing;
        this.clock = clock;
        this.timers = timers;
        this.blocking = blocking;
        this.settings = settings;
    }

    ListModelsUseCase models() {
        return models;
    }

    /**
     * @param outputCap the most output tokens this surface allows, below the model's own cap (the playground's);
     *                  {@link Integer#MAX_VALUE} for none
     * @param where     how the surface reads in messages ("" or " on the public playground")
     */
    Prepared prepare(ChatRequest asked, int outputCap, String where) {
        CatalogModel model = models.get(asked.model());
        // Tools declared with tool_choice "none" ask for no tool use: a model that takes no tools is served without
        // them (frameworks send their tools with every request) rather than refused.
        ChatRequest request = asked.toolsJson() != null && asked.toolUseRuledOut()
                && model.routesFor(asked.features()).isEmpty() ? asked.withoutTools() : asked;
        List<ProviderRoute> able = model.routesFor(request.features());
        List<ProviderRoute> routes = able.stream()
                .filter(r -> providers.byName(r.provider().value()).isPresent())
                .toList();
        if (routes.isEmpty()) {
            List<String> missing = model.capabilities().missing(request.features());
            if (!missing.isEmpty()) {
                throw new UnsupportedCapabilityException(model.id(), missing);
            }
            if (!able.isEmpty()) {
                // The catalog names providers this instance has not built (added to the file after start-up): the
                // server's configuration, not the request, is wrong.
                throw new CatalogUnavailableException("no provider of '" + model.id() + "' is running in this "
                        + "instance (a provider added to the catalog takes effect at the next start)");
            }
            throw new DomainRuleViolation("model", "no configured provider serves '" + model.id()
                    + "' with the requested features");
        }
        // Everything that goes upstream counts: the text of the messages and definitions, and each image part at the
        // most the model says one may cost, so the hold bounds what the provider will bill.
        long promptTokens = tokens.countPrompt(request) + (long) request.images() * model.imageTokens();
        int maxTokens = outputAllowance(model, request, promptTokens, outputCap, where);
        return new Prepared(request, model, routes, promptTokens, maxTokens,
                Pricing.maximumCost(routes, promptTokens, maxTokens));
    }

    /** Holds (when an account pays) and starts the run; the ticket is released on every way out. */
    RunningCompletion launch(Prepared prepared, String requestId, TrafficGuard.Ticket ticket, Payer payer,
            CompletionObserver observer) {
        boolean running = false;
        try {
            observer.onAdmitted(ticket.report());
            Instant admittedAt = clock.instant();
            Consumer<BillingLedger.Settlement> settle;
            KeyHash keyHash;
            Runnable ending;
            if (payer instanceof AccountPays account) {
                hold(account.principal(), requestId, prepared.maximumCost(), admittedAt);
                settle = billing::settle;
                keyHash = account.principal().keyHash();
                ending = () -> billing.ending(requestId, account.principal().accountId());
            } else {
                settle = ((OperatorPays) payer).ledger()::record;
                keyHash = null;
                ending = () -> { };
            }
            if (!observer.onReady()) {
                abandon(prepared, requestId, payer, keyHash, admittedAt, observer,
                        observer.clientGone() ? "cancelled" : "failed");
            }
            Consumer<BillingLedger.Settlement> write = settle;
            Consumer<BillingLedger.Settlement> settleAndForget = settlement -> {
                try {
                    write.accept(settlement);
                } finally {
                    unsettled.remove(requestId);
                }
            };
            CompletionRun run = new CompletionRun(new CompletionRun.Context(keyHash, prepared.request(), requestId,
                    prepared.routes(), prepared.promptTokens(), prepared.maxTokens(), prepared.model().contextLength(),
                    prepared.maximumCost(),
                    admittedAt, providers, tokens, settleAndForget, clock, timers, blocking, settings, ticket::release,
                    ticket.releasesInPlace(), ending),
                    observer);
            unsettled.put(requestId, run);
            run.begin();
            running = true;
            return run;
        } finally {
            if (!running) {
                unsettled.remove(requestId);
                ticket.release();
            }
        }
    }

    /**
     * The process is stopping: every run not settled yet ends now and is settled with what it delivered
     * ({@link CompletionRun#interrupt}). Waits up to {@code wait} for the settlements to be written.
     *
     * @return how many runs were ended, and how many of them were still not settled when the wait ended
     */
    InterruptedCompletions interruptRunning(Duration wait) throws InterruptedException {
        List<CompletionRun> runs = List.copyOf(unsettled.values());
        for (CompletionRun run : runs) {
            run.interrupt();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (!unsettled.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        return new InterruptedCompletions(runs.size(), unsettled.size());
    }

    /**
     * The client was answered while the request was being admitted (its hold took longer than the surface waits):
     * nothing goes upstream, and a hold placed meanwhile is settled at no charge — the request is on the ledger as
     * failed, like one no provider could serve.
     */
    private void abandon(Prepared prepared, String requestId, Payer payer, KeyHash keyHash, Instant admittedAt,
            CompletionObserver observer, String status) {
        if (payer instanceof AccountPays) {
            Instant now = clock.instant();
            try {
                observer.onSettled(null, status, TokenUsage.NONE, Usd.ZERO);
            } finally {
                billing.settle(new BillingLedger.Settlement(requestId, keyHash, prepared.request().model().value(),
                        null, TokenUsage.NONE, Usd.ZERO, status, now, Duration.between(admittedAt, now).toMillis(),
                        null, prepared.request().stream(), admittedAt.plus(settings.lease())));
            }
        }
        throw new ClientAnsweredException();
    }

    private void hold(ApiKeyPrincipal principal, String requestId, Usd amount, Instant admittedAt) {
        BillingLedger.HoldOutcome outcome = billing.placeHold(new BillingLedger.HoldRequest(requestId,
                principal.accountId(), principal.apiKeyId(), amount, admittedAt, admittedAt.plus(settings.lease())));
        switch (outcome) {
            case INSUFFICIENT_BALANCE -> throw new InsufficientQuotaException(
                    InsufficientQuotaException.Reason.ACCOUNT_BALANCE);
            case KEY_LIMIT_REACHED -> throw new InsufficientQuotaException(
                    InsufficientQuotaException.Reason.KEY_LIMIT);
            default -> {
                // held: go upstream
            }
        }
    }

    /**
     * §2.3 max_tokens: at most the model's output cap (and the surface's); absent, whatever the context leaves, up
     * to the cap.
     */
    /** Tokens kept free of the context when the client set no bound (besides a quarter of the prompt). */
    static final long CONTEXT_MARGIN = 64;

    private static int outputAllowance(CatalogModel model, ChatRequest request, long promptTokens, int outputCap,
            String where) {
        long room = model.contextLength() - promptTokens;
        if (room < 1) {
            throw new ContextLengthExceeded("messages", "the prompt has about " + promptTokens
                    + " tokens; model '" + model.id() + "' takes at most " + model.contextLength()
                    + " tokens of prompt and output together");
        }
        int cap = Math.min(model.maxOutputTokens(), outputCap);
        if (request.maxTokens() == null) {
            // The provider counts the prompt with its own tokenizer and chat template, which may come to more than
            // this estimate: a bound of exactly what the estimate leaves was refused by vLLM ("you requested 8214
            // tokens") for every request without max_tokens to a model whose cap is its context (an audit). A margin
            // keeps the bound the gateway sends within the context — unless the prompt leaves too little for one.
            long safe = room - Math.max(CONTEXT_MARGIN, promptTokens / 4);
            return (int) Math.min(cap, safe >= 1 ? safe : room);
        }
        // The refusal names the field the client sent: max_tokens or its synonym max_completion_tokens.
        String field = request.maxTokensField();
        if (request.maxTokens() > cap) {
            throw new DomainRuleViolation(field, field + " is " + request.maxTokens() + "; model '"
                    + model.id() + "' produces at most " + cap + " tokens" + where);
        }
        if (request.maxTokens() > room) {
            throw new ContextLengthExceeded(field, "the prompt (about " + promptTokens + " tokens) plus "
                    + field + " (" + request.maxTokens() + ") exceed the context length of model '" + model.id()
                    + "' (" + model.contextLength() + " tokens)");
        }
        return request.maxTokens();
    }
}
