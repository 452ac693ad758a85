package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompleteChatUseCase;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.completions.UnsupportedCapabilityException;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.billing.Pricing;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Service: a chat completion with exact prepaid billing (hold → settle → release). Before anything goes upstream
 * the request's maximum cost is held against the balance and the key's limit in one atomic step; the request is
 * then served by the model's providers in fallback order ({@link CompletionRun}) and settled exactly once.
 */
public final class ChatCompletionService implements CompleteChatUseCase {

    private final ListModelsUseCase models;
    private final ModelProviders providers;
    private final TokenCounter tokens;
    private final BillingLedger billing;
    private final Clock clock;
    private final ScheduledExecutorService timers;
    private final Executor blocking;
    private final CompletionSettings settings;

    public ChatCompletionService(ListModelsUseCase models, ModelProviders providers, TokenCounter tokens,
            BillingLedger billing, Clock clock, ScheduledExecutorService timers, Executor blocking,
            CompletionSettings settings) {
        this.models = models;
        this.providers = providers;
        this.tokens = tokens;
        this.billing = billing;
        this.clock = clock;
        this.timers = timers;
        this.blocking = blocking;
        this.settings = settings;
    }

    @Override
    public RunningCompletion start(ApiKeyPrincipal principal, ChatRequest request, String requestId,
            CompletionObserver observer) {
        CatalogModel model = models.get(request.model());
        List<ProviderRoute> routes = model.routesFor(request.features()).stream()
                .filter(r -> providers.byName(r.provider().value()).isPresent())
                .toList();
        if (routes.isEmpty()) {
            List<String> missing = model.capabilities().missing(request.features());
            if (!missing.isEmpty()) {
                throw new UnsupportedCapabilityException(model.id(), missing);
            }
            throw new DomainRuleViolation("model", "no configured provider serves '" + model.id()
                    + "' with the requested features");
        }
        long promptTokens = tokens.countPrompt(request.messages());
        int maxTokens = outputAllowance(model, request, promptTokens);
        Usd hold = Pricing.maximumCost(routes, promptTokens, maxTokens);
        Instant admittedAt = clock.instant();
        BillingLedger.HoldOutcome outcome = billing.placeHold(new BillingLedger.HoldRequest(requestId,
                principal.accountId(), principal.apiKeyId(), hold, admittedAt, admittedAt.plus(settings.lease())));
        switch (outcome) {
            case INSUFFICIENT_BALANCE -> throw new InsufficientQuotaException(InsufficientQuotaException.Reason.ACCOUNT_BALANCE);
            case KEY_LIMIT_REACHED -> throw new InsufficientQuotaException(InsufficientQuotaException.Reason.KEY_LIMIT);
            default -> {
                // held: go upstream
            }
        }
        CompletionRun run = new CompletionRun(new CompletionRun.Context(principal, request, requestId, routes,
                promptTokens, maxTokens, hold, admittedAt, providers, tokens, billing, clock, timers, blocking,
                settings), observer);
        run.begin();
        return run;
    }

    /** §2.3 max_tokens: at most the model's output cap; absent, whatever the context leaves, up to the cap. */
    private static int outputAllowance(CatalogModel model, ChatRequest request, long promptTokens) {
        long room = model.contextLength() - promptTokens;
        if (room < 1) {
            throw new DomainRuleViolation("messages", "the prompt has about " + promptTokens
                    + " tokens; model '" + model.id() + "' takes at most " + model.contextLength()
                    + " tokens of prompt and output together");
        }
        if (request.maxTokens() == null) {
            return (int) Math.min(model.maxOutputTokens(), room);
        }
        if (request.maxTokens() > model.maxOutputTokens()) {
            throw new DomainRuleViolation("max_tokens", "max_tokens is " + request.maxTokens() + "; model '"
                    + model.id() + "' produces at most " + model.maxOutputTokens() + " tokens");
        }
        if (request.maxTokens() > room) {
            throw new DomainRuleViolation("max_tokens", "the prompt (about " + promptTokens + " tokens) plus "
                    + "max_tokens (" + request.maxTokens() + ") exceed the context length of model '" + model.id()
                    + "' (" + model.contextLength() + " tokens)");
        }
        return request.maxTokens();
    }
}
