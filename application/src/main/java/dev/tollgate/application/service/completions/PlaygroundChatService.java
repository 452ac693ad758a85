package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.playground.PlaygroundChatUseCase;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.application.port.out.PlaygroundLedger;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.completion.PiiRedactor;
import dev.tollgate.domain.shared.DomainRuleViolation;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Service: the public playground (§8.2). Anonymous visitors use the free models at the operator's expense, within
 * the playground's own limits; in user-billed mode a signed-in caller is billed like {@code /v1}. Either way the
 * prompt is sanitised of personal data before anything else sees it — token estimates and the behavioural
 * fingerprint included.
 */
public final class PlaygroundChatService implements PlaygroundChatUseCase {

    private static final String ON_PLAYGROUND = " on the public playground";

    private final CompletionLauncher launcher;
    private final TrafficGuard traffic;
    private final PlaygroundLedger ledger;
    private final PlaygroundSettings settings;
    private final PiiRedactor redactor = new PiiRedactor();

    public PlaygroundChatService(ChatCompletionService completions, TrafficGuard traffic, PlaygroundLedger ledger,
            PlaygroundSettings settings) {
        this.launcher = completions.launcher();
        this.traffic = traffic;
        this.ledger = ledger;
        this.settings = settings;
    }

    @Override
    public RunningCompletion startAnonymous(ChatRequest request, String requestId, TrafficOrigin origin,
            CompletionObserver observer) {
        if (!settings.freeModels().contains(request.model())) {
            throw new ModelNotFoundException(request.model(), settings.freeModels().stream().map(ModelId::value)
                    .collect(Collectors.joining(", ")));
        }
        // Before anything reads the prompt closely (redaction, the tokenizer): anyone may send these, and the
        // traffic limits need the token estimate, so an anonymous prompt's size is bounded first.
        if (request.textLength() > settings.maxPromptChars()) {
            throw new DomainRuleViolation("messages", "The public playground takes prompts of at most "
                    + settings.maxPromptChars() + " characters; this one has " + request.textLength()
                    + ": shorten it, or send it to /v1/chat/completions with an API key");
        }
        CompletionLauncher.Prepared prepared = launcher.prepare(request.sanitised(redactor),
                settings.maxOutputTokens(), ON_PLAYGROUND);
        long tokens = prepared.promptTokens() + prepared.maxTokens();
        long budget = traffic.rules().limits().playground().allTokensPerMinute();
        if (tokens > budget) {
            // It would never fit, however long the client waited: its request, not the traffic, is at fault.
            boolean prompt = prepared.promptTokens() > budget;
            throw new DomainRuleViolation(prompt ? "messages" : "max_tokens", "This request needs about " + tokens
                    + " tokens (prompt " + prepared.promptTokens() + " + max_tokens " + prepared.maxTokens()
                    + "), more than the playground's whole budget of " + budget + " tokens per minute: "
                    + (prompt ? "shorten the prompt" : "lower max_tokens"));
        }
        TrafficGuard.Ticket ticket = traffic.admitAnonymousPlayground(origin, tokens);
        return launcher.launch(prepared, requestId, ticket, new CompletionLauncher.OperatorPays(ledger), observer);
    }

    @Override
    public RunningCompletion startUserBilled(ApiKeyPrincipal principal, ChatRequest request, String requestId,
            TrafficOrigin origin, CompletionObserver observer) {
        if (!settings.userBilled()) {
            throw new IllegalStateException("user-billed playground mode is off");
        }
        CompletionLauncher.Prepared prepared = launcher.prepare(request.sanitised(redactor),
                Integer.MAX_VALUE, "");
        TrafficGuard.Ticket ticket = traffic.admitUserPlayground(principal, origin, prepared.shape());
        return launcher.launch(prepared, requestId, ticket, new CompletionLauncher.AccountPays(principal), observer);
    }

    @Override
    public RateLimitReport countRefusedAnonymous(TrafficOrigin origin) {
        return traffic.admitAnonymousPlaygroundPlain(origin);
    }

    @Override
    public boolean userBilledMode() {
        return settings.userBilled();
    }

    @Override
    public List<ModelId> freeModels() {
        return settings.freeModels();
    }
}
