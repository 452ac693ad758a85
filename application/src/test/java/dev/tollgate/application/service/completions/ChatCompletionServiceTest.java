package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.in.traffic.TrafficLimitsUnavailableException;
import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.quota.Refusal;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.application.testing.InMemoryQuotaCounter;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.in.completions.ClientAnsweredException;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.in.completions.CatalogUnavailableException;
import dev.tollgate.application.port.in.completions.UnsupportedCapabilityException;
import dev.tollgate.application.port.out.ModelCatalog;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.application.testing.InMemoryBillingLedger;
import dev.tollgate.application.testing.ManualScheduler;
import dev.tollgate.application.testing.ScriptedModelProvider;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.Pricing;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.completion.ContextLengthExceeded;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link ChatCompletionService} and its {@link CompletionRun} on in-memory fakes: the billing ledger, scripted
 * providers driven by the test, a word-counting tokenizer, virtual-time timers, and a blocking executor whose
 * tasks (the settlements) run only when the test says so. Prices are chosen so that costs are easy sums:
 * route {@code alpha} costs 1 µUSD per prompt token and 3 per completion token, route {@code beta} 2 and 4.
 */
class ChatCompletionServiceTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");
    private static final TrafficOrigin ORIGIN = TrafficOrigin.of("203.0.113.7");
    private static final Usd OPENING_BALANCE = Usd.ofDollars(new java.math.BigDecimal("5"));
    private static final ModelCapabilities PLAIN = new ModelCapabilities(false, false, false, false);

    private static final ProviderRoute ALPHA = route("alpha", "alpha-upstream", 1_000_000, 3_000_000, PLAIN);
    private static final ProviderRoute BETA = route("beta", "beta-upstream", 2_000_000, 4_000_000, PLAIN);

    /** One route (alpha), context 1000, output cap 200. */
    private static final CatalogModel SOLO = model("test/solo", 1000, 200, ALPHA);
    /** alpha first, beta as fallback. */
    private static final CatalogModel PAIR = model("test/pair", 1000, 200, ALPHA, BETA);
    /** An expensive plain route first, a cheap route with tools second. */
    private static final CatalogModel TOOLS_ON_SECOND = model("test/tools-on-second", 1000, 200,
            route("alpha", "alpha-big", 10_000_000, 50_000_000, PLAIN),
            route("beta", "beta-tools", 2_000_000, 4_000_000, new ModelCapabilities(true, false, false, false)));
    /** Fractional prices: $0.15 and $0.60 per million tokens. */
    private static final CatalogModel CHEAP = model("test/cheap", 1000, 200,
            route("alpha", "alpha-cheap", 150_000, 600_000, PLAIN));

    private final MutableClock clock = new MutableClock(NOW);
    private final InMemoryBillingLedger ledger = new InMemoryBillingLedger();
    private final ScriptedModelProvider alpha = new ScriptedModelProvider("alpha");
    private final ScriptedModelProvider beta = new ScriptedModelProvider("beta");
    private final QueueExecutor blocking = new QueueExecutor();
    private BillingLedger billing = ledger;
    private final InMemoryQuotaCounter quotas = new InMemoryQuotaCounter();
    private TrafficGuard traffic = new TrafficGuard(new TrafficRules(TrafficLimits.DEFAULTS), quotas, clock, true);
    private final ManualScheduler timers = new ManualScheduler();
    private final ApiKeyPrincipal principal = new ApiKeyPrincipal(ApiKeyId.newId(), new KeyHash("ab".repeat(32)),
            AccountId.newId());
    /** One route (alpha) that sends log probabilities. */
    private static final CatalogModel WITH_LOGPROBS = model("test/logprobs", 1000, 200,
            route("alpha", "alpha-logprobs", 1_000_000, 3_000_000, new ModelCapabilities(false, false, true, false)));
    private final List<CatalogModel> catalog = new ArrayList<>(List.of(SOLO, PAIR, TOOLS_ON_SECOND, CHEAP,
            WITH_LOGPROBS));
    private CompletionSettings settings = new CompletionSettings(Duration.ofSeconds(30), Duration.ofSeconds(20),
            Duration.ofMinutes(15), 2, Duration.ofSeconds(1), Duration.ofSeconds(8));
    private ScheduledExecutorService realTimers;

    @BeforeEach
    void openAccount() {
        ledger.openAccount(principal.accountId(), OPENING_BALANCE);
    }

    @AfterEach
    void stopRealTimers() {
        if (realTimers != null) {
            realTimers.shutdownNow();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fixtures

    private static ProviderRoute route(String provider, String upstream, long inMicrosPerMillion,
            long outMicrosPerMillion, ModelCapabilities capabilities) {
        return new ProviderRoute(new ProviderId(provider), upstream, new TokenPrice(inMicrosPerMillion),
                new TokenPrice(outMicrosPerMillion), capabilities);
    }

    private static CatalogModel model(String id, int context, int maxOutput, ProviderRoute... routes) {
        return new CatalogModel(new ModelId(id), "tests", 1_767_225_600L, context, maxOutput, List.of(routes));
    }

    /** One token per whitespace-separated word; a prompt is the words of its messages. */
    private static final class WordTokens implements TokenCounter {
        @Override
        public long countPrompt(ChatRequest request) {
            return request.messages().stream().mapToLong(m -> countText(m.text()) + countText(m.extra())).sum()
                    + countText(request.definitionsText());
        }

        @Override
        public long countText(String text) {
            String trimmed = text.strip();
            return trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
        }
    }

    /** Collects tasks; settlements run only in {@link #runAll()}. */
    private static final class QueueExecutor implements Executor {
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

        @Override
        public void execute(Runnable command) {
            tasks.add(command);
        }

        int pending() {
            return tasks.size();
        }

        void runAll() {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                task.run();
            }
        }
    }

    /** Records what a client would see. */
    /** An observer whose client was answered meanwhile ({@code gone}: whose client left) when the run is ready. */
    private static RecordingObserver notReady(boolean gone) {
        return new RecordingObserver() {
            @Override
            public boolean onReady() {
                return false;
            }

            @Override
            public boolean clientGone() {
                return gone;
            }
        };
    }

    private static class RecordingObserver implements CompletionObserver {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        /** What onSettled was told: "status provider prompt+completion charged-micros". */
        final List<String> settlements = Collections.synchronizedList(new ArrayList<>());
        final StringBuilder text = new StringBuilder();
        /** Failed attempts, "provider status", as monitoring sees them. */
        final List<String> failedAttempts = Collections.synchronizedList(new ArrayList<>());
        volatile CompletionResult result;
        volatile CompletionFailure failure;

        @Override
        public void onStarted(String provider) {
            events.add("started:" + provider);
        }

        @Override
        public void onDelta(String delta) {
            events.add("delta");
            text.append(delta);
        }

        @Override
        public void onSettled(String provider, String status, TokenUsage billed, Usd charged) {
            settlements.add(status + " " + provider + " " + billed.promptTokens() + "+" + billed.completionTokens()
                    + " " + charged.micros());
        }

        @Override
        public void onText(AnswerChannel channel, String delta) {
            events.add(channel.name().toLowerCase(java.util.Locale.ROOT));
        }

        @Override
        public void onToolCallDelta(String toolCallsJson) {
            events.add("tool_calls");
        }

        @Override
        public void onLogprobs(String contentJson) {
            events.add("logprobs");
        }

        @Override
        public void onAttemptFailed(String provider, int status) {
            failedAttempts.add(provider + " " + status);
        }

        @Override
        public void onComplete(CompletionResult completion) {
            events.add("complete");
            result = completion;
        }

        @Override
        public void onFailure(CompletionFailure failed) {
            events.add("failure");
            failure = failed;
        }

        long terminalEvents() {
            return events.stream().filter(e -> e.equals("complete") || e.equals("failure")).count();
        }
    }

    private ChatCompletionService service(ScheduledExecutorService scheduler) {
        ModelCatalog modelCatalog = () -> List.copyOf(catalog);
        Map<String, ModelProvider> byName = Map.of("alpha", alpha, "beta", beta);
        ModelProviders providers = name -> Optional.ofNullable(byName.get(name));
        return new ChatCompletionService(new ModelCatalogService(modelCatalog), providers, new WordTokens(), billing,
                clock, scheduler, blocking, settings, traffic);
    }

    private ChatCompletionService service() {
        return service(timers);
    }

    private static ChatRequest request(String model, String prompt, Integer maxTokens) {
        return new ChatRequest(new ModelId(model), List.of(new ChatMessage("user", prompt,
                "{\"role\":\"user\",\"content\":\"" + prompt + "\"}")), maxTokens, null, null, null, null, null, null,
                false, null, null, null, null, null, false);
    }

    private static ChatRequest withTools(ChatRequest r) {
        return new ChatRequest(r.model(), r.messages(), r.maxTokens(), null, null, null, null, null, null, false,
                null, null, "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]", null, null, r.stream());
    }

    private static ChatRequest asMaxCompletionTokens(ChatRequest r) {
        return new ChatRequest(r.model(), r.messages(), r.maxTokens(), null, null, null, null, null, null, false,
                null, null, null, null, null, r.stream(), "max_completion_tokens");
    }

    private static ChatRequest withLogprobs(ChatRequest r) {
        return new ChatRequest(r.model(), r.messages(), r.maxTokens(), null, null, null, null, null, null, true, 2,
                null, null, null, null, r.stream());
    }

    private static String newRequestId() {
        return "req_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    }

    private static Usd micros(long micros) {
        return Usd.ofMicros(micros);
    }

    private Usd available() {
        return ledger.available(principal.accountId());
    }

    private InMemoryBillingLedger.LedgerRow settledRow(String requestId) {
        blocking.runAll();
        return ledger.ledgerRow(requestId).orElseThrow(() -> new AssertionError("no settlement of " + requestId));
    }

    /** The three-word prompt used by most tests: 3 prompt tokens. */
    private static final String PROMPT = "say something nice";

    /** Starts a request on {@code model} with the usual prompt and {@code maxTokens}. */
    private Started start(String model, Integer maxTokens) {
        return start(request(model, PROMPT, maxTokens));
    }

    private Started start(ChatRequest request) {
        String requestId = newRequestId();
        RecordingObserver observer = new RecordingObserver();
        RunningCompletion running = service().start(principal, request, requestId, ORIGIN, observer);
        return new Started(requestId, observer, running);
    }

    private record Started(String requestId, RecordingObserver observer, RunningCompletion running) {
    }

    private void assertNothingHeldOrSent() {
        assertEquals(0, ledger.placeHoldCalls(), "no hold may be attempted");
        assertTrue(ledger.openHoldList().isEmpty());
        assertTrue(alpha.calls().isEmpty(), "nothing may go upstream");
        assertTrue(beta.calls().isEmpty(), "nothing may go upstream");
        assertEquals(OPENING_BALANCE, available());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Admission: the hold comes first, and only for requests that can be served

    @Nested
    class Admission {

        @Test
        void theMaximumCostIsHeldBeforeTheProviderIsCalled() {
            AtomicReference<Optional<InMemoryBillingLedger.Hold>> holdAtCall = new AtomicReference<>();
            AtomicReference<Usd> availableAtCall = new AtomicReference<>();
            alpha.whenCalled(call -> {
                holdAtCall.set(ledger.openHoldList().stream().findFirst());
                availableAtCall.set(available());
            });

            Started started = start("test/solo", 100);

            InMemoryBillingLedger.Hold hold = holdAtCall.get().orElseThrow(() ->
                    new AssertionError("the provider was called without a hold"));
            // 3 prompt tokens × 1 µUSD + 100 output tokens × 3 µUSD.
            assertEquals(micros(303), hold.amount());
            assertEquals(started.requestId(), hold.requestId());
            assertEquals(principal.accountId(), hold.accountId());
            assertEquals(principal.apiKeyId(), hold.apiKeyId());
            assertEquals(NOW, hold.admittedAt());
            assertEquals(NOW.plus(settings.lease()), hold.leaseUntil());
            assertEquals(OPENING_BALANCE.minusFloorZero(micros(303)), availableAtCall.get());
            ScriptedModelProvider.Call call = alpha.onlyCall();
            assertEquals(100, call.maxTokens());
            assertEquals(ALPHA, call.route());
            assertEquals("alpha-upstream", call.route().upstreamModel());
            assertEquals(new ModelId("test/solo"), call.request().model());
        }

        @Test
        void theHoldCoversTheDearestRouteThatMightServeTheRequest() {
            Started started = start("test/pair", 100);

            // alpha: 3 + 300 = 303; beta: 6 + 400 = 406 — a fallback must never cost more than was held.
            assertEquals(micros(406), ledger.openHold(started.requestId()).orElseThrow().amount());
            assertEquals(1, alpha.calls().size(), "the first route is tried first");
            assertTrue(beta.calls().isEmpty());
        }

        @Test
        void withoutMaxTokensTheHoldCoversTheModelsOutputCap() {
            Started started = start("test/solo", null);

            assertEquals(200, alpha.onlyCall().maxTokens());
            assertEquals(micros(3 + 200 * 3), ledger.openHold(started.requestId()).orElseThrow().amount());
        }

        @Test
        void withoutMaxTokensALongPromptLeavesOnlyTheRestOfTheContext() {
            String prompt = "word ".repeat(900).strip(); // 900 tokens of a 1000-token context
            Started started = start(request("test/solo", prompt, null));

            assertEquals(100, alpha.onlyCall().maxTokens());
            assertEquals(micros(900 + 100 * 3), ledger.openHold(started.requestId()).orElseThrow().amount());
        }

        @Test
        void withoutMaxTokensAModelWhoseCapIsItsContextGetsABoundWithinItForAnotherTokenizer() {
            catalog.add(model("test/whole-context", 1000, 1000, route("alpha", "a", 1_000_000, 3_000_000, PLAIN)));
            start(request("test/whole-context", PROMPT, null));
            long prompt = 1000 - alpha.onlyCall().maxTokens() - 64;
            assertTrue(prompt > 0 && prompt < 20, "the context less the prompt estimate less a margin of 64: "
                    + alpha.onlyCall().maxTokens());
            String longPrompt = "word ".repeat(600).strip();
            start(request("test/whole-context", longPrompt, null));
            assertTrue(alpha.calls().get(1).maxTokens() <= 1000 - 600 - 150,
                    "a quarter of a long prompt kept free: " + alpha.calls().get(1).maxTokens());
        }

        @Test
        void onlyRoutesWithTheRequestedCapabilityAreHeldForAndCalled() {
            Started started = start(withTools(request("test/tools-on-second", PROMPT, 100)));

            // Only beta serves tools: (3 + 5) × 2 + 100 × 4 = 416, not alpha's 3 × 10 + 100 × 50 = 5030 — the
            // definition's five strings (type, function, function, name, f) go upstream and count as prompt.
            assertEquals(micros(416), ledger.openHold(started.requestId()).orElseThrow().amount());
            assertTrue(alpha.calls().isEmpty(), "the route without tools is skipped");
            assertEquals(1, beta.calls().size());

            Started plain = start("test/tools-on-second", 100);
            assertEquals(micros(5030), ledger.openHold(plain.requestId()).orElseThrow().amount());
        }

        @Test
        void everythingThatGoesUpstreamCountsInTheHoldAndTheContext() {
            // A tool call's arguments (500 words) travel in the assistant message's JSON, not in its text.
            ChatMessage toolCall = new ChatMessage("assistant", "", "{}", "call_1 function f " + "w ".repeat(500), 0);
            ChatRequest base = request("test/tools-on-second", PROMPT, 100);
            String function = "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}";
            ChatRequest request = new ChatRequest(base.model(), List.of(base.messages().get(0), toolCall), 100, null,
                    null, null, null, null, null, false, null, null, "[" + function + "]", function, null, false);
            Started started = start(request);
            // Only beta serves tools: (3 + 503 + 5 + 5) × 2 + 100 × 4 — the messages with the tool call's 503
            // words, then the five strings of tools and of tool_choice.
            assertEquals(micros((3 + 503 + 5 + 5) * 2 + 400), ledger.openHold(started.requestId()).orElseThrow()
                    .amount());

            ChatRequest tooLong = new ChatRequest(base.model(), List.of(base.messages().get(0), new ChatMessage(
                    "assistant", "", "{}", "w ".repeat(950), 0)), 100, null, null, null, null, null, null, false,
                    null, null, null, null, null, false);
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> start(tooLong));
            assertEquals("max_tokens", violation.field(), "953 prompt + 100 output > the 1000-token context");
        }

        @Test
        void imagesCountAtTheModelsImageTokensAndNeedARouteThatTakesThem() {
            catalog.add(new CatalogModel(new ModelId("test/vision"), "tests", 1_767_225_600L, 1000, 200,
                    List.of(route("alpha", "alpha-vision", 1_000_000, 3_000_000,
                            new ModelCapabilities(false, false, false, false, true))), 85));
            ChatRequest base = request("test/vision", PROMPT, 100);
            ChatMessage twoImages = new ChatMessage("user", PROMPT, "{}", "", 2);
            ChatRequest request = new ChatRequest(base.model(), List.of(twoImages), 100, null, null, null, null, null,
                    null, false, null, null, null, null, null, false);
            Started started = start(request);
            assertEquals(micros(3 + 2 * 85 + 100 * 3), ledger.openHold(started.requestId()).orElseThrow().amount());

            ChatRequest plain = new ChatRequest(new ModelId("test/solo"), List.of(twoImages), 100, null, null, null,
                    null, null, null, false, null, null, null, null, null, false);
            UnsupportedCapabilityException refused = assertThrows(UnsupportedCapabilityException.class,
                    () -> start(plain));
            assertEquals("messages", refused.param(), "images travel in the messages");
            assertTrue(refused.getMessage().contains("image input"), refused.getMessage());
        }

        @Test
        void aModelWhoseProvidersThisInstanceDoesNotRunIsUnavailableNotTheClientsFault() {
            catalog.add(model("test/orphan", 1000, 200, route("gamma", "gamma-model", 1_000_000, 3_000_000, PLAIN)));
            CatalogUnavailableException unavailable = assertThrows(CatalogUnavailableException.class,
                    () -> start("test/orphan", 10));
            assertEquals("service_unavailable", unavailable.code());
            assertTrue(unavailable.getMessage().contains("next start"), unavailable.getMessage());
            assertNothingHeldOrSent();
        }

        @Test
        void anUnknownModelIsRefusedBeforeAnyHold() {
            ModelNotFoundException refused = assertThrows(ModelNotFoundException.class,
                    () -> start("test/nope", 10));
            assertEquals("model_not_found", refused.code());
            assertNothingHeldOrSent();
        }

        @Test
        void aMissingCapabilityIsRefusedBeforeAnyHold() {
            UnsupportedCapabilityException tools = assertThrows(UnsupportedCapabilityException.class,
                    () -> start(withTools(request("test/pair", PROMPT, 10))));
            assertEquals("tools", tools.param());

            UnsupportedCapabilityException logprobs = assertThrows(UnsupportedCapabilityException.class,
                    () -> start(withLogprobs(request("test/tools-on-second", PROMPT, 10))));
            assertEquals("logprobs", logprobs.param());
            assertNothingHeldOrSent();
        }

        @Test
        void toolsWithToolChoiceNoneAreLeftOutForAModelWithoutTools() {
            ChatRequest tools = withTools(request("test/pair", PROMPT, 10));
            ChatRequest none = new ChatRequest(tools.model(), tools.messages(), tools.maxTokens(), null, null, null,
                    null, null, null, false, null, null, tools.toolsJson(), "\"none\"", null, false);
            start(none);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            assertNull(call.request().toolsJson(), "no tools sent to a route that takes none");
            assertNull(call.request().toolChoiceJson());

            ChatRequest auto = new ChatRequest(tools.model(), tools.messages(), tools.maxTokens(), null, null, null,
                    null, null, null, false, null, null, tools.toolsJson(), "\"auto\"", null, false);
            assertEquals("tools", assertThrows(UnsupportedCapabilityException.class, () -> start(auto)).param(),
                    "tool use allowed: the missing capability is refused as before");
        }

        @Test
        void maxTokensAboveTheModelsCapIsARuleViolationBeforeAnyHold() {
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> start("test/solo", 201));
            assertEquals("max_tokens", violation.field());
            assertNothingHeldOrSent();
        }

        @Test
        void promptPlusMaxTokensBeyondTheContextIsRefused() {
            String prompt = "word ".repeat(850).strip();
            // Its own type: the HTTP adapter answers OpenAI's code context_length_exceeded for it.
            ContextLengthExceeded violation = assertThrows(ContextLengthExceeded.class,
                    () -> start(request("test/solo", prompt, 200)));
            assertEquals("max_tokens", violation.field());

            String tooLong = "word ".repeat(1000).strip();
            ContextLengthExceeded prompted = assertThrows(ContextLengthExceeded.class,
                    () -> start(request("test/solo", tooLong, null)));
            assertEquals("messages", prompted.field());
            assertNothingHeldOrSent();
        }

        @Test
        void aBoundSentAsMaxCompletionTokensIsRefusedUnderThatName() {
            DomainRuleViolation overCap = assertThrows(DomainRuleViolation.class,
                    () -> start(asMaxCompletionTokens(request("test/solo", PROMPT, 201))));
            assertEquals("max_completion_tokens", overCap.field());
            assertEquals("max_completion_tokens is 201; model 'test/solo' produces at most 200 tokens",
                    overCap.getMessage());

            String prompt = "word ".repeat(850).strip();
            DomainRuleViolation overContext = assertThrows(DomainRuleViolation.class,
                    () -> start(asMaxCompletionTokens(request("test/solo", prompt, 200))));
            assertEquals("max_completion_tokens", overContext.field());
            assertTrue(overContext.getMessage().contains("plus max_completion_tokens (200)"),
                    overContext.getMessage());
            assertFalse(overContext.getMessage().contains("max_tokens"), overContext.getMessage());
            assertNothingHeldOrSent();
        }

        @Test
        void aBalanceBelowTheHoldIsInsufficientQuotaAndNothingGoesUpstream() {
            ledger.openAccount(principal.accountId(), micros(302)); // one µUSD short of 303

            InsufficientQuotaException refused = assertThrows(InsufficientQuotaException.class,
                    () -> start("test/solo", 100));

            assertEquals(InsufficientQuotaException.Reason.ACCOUNT_BALANCE, refused.reason());
            assertEquals("insufficient_quota", refused.code());
            assertTrue(alpha.calls().isEmpty());
            assertTrue(ledger.openHoldList().isEmpty());
            assertEquals(micros(302), available());

            ledger.openAccount(principal.accountId(), micros(303));
            start("test/solo", 100); // exactly enough
            assertEquals(1, alpha.calls().size());
        }

        @Test
        void aRequestWhoseClientWasAnsweredWhileItsHoldWasPlacedRunsNothingAndIsChargedNothing() {
            // The surface answered 503 while the database was slow to place the hold: the hold, placed after all,
            // goes back whole, the request is on the ledger as failed at no charge, and its slots are free.
            RecordingObserver observer = notReady(false);
            String requestId = newRequestId();

            assertThrows(ClientAnsweredException.class, () -> service().start(principal,
                    request("test/solo", PROMPT, 100), requestId, ORIGIN, observer));

            assertEquals(1, ledger.placeHoldCalls(), "the hold was placed before the answer was known");
            assertTrue(ledger.openHoldList().isEmpty(), "and settled at once");
            InMemoryBillingLedger.LedgerRow row = ledger.ledgerRow(requestId).orElseThrow();
            assertEquals("failed", row.status());
            assertEquals(Usd.ZERO, row.cost());
            assertEquals(TokenUsage.NONE, row.usage());
            assertNull(row.provider(), "no provider was asked");
            assertEquals(OPENING_BALANCE, available());
            assertTrue(alpha.calls().isEmpty(), "nothing went upstream");
            assertTrue(observer.events.isEmpty(), "the client hears nothing more");
            assertEquals(List.of("failed null 0+0 0"), observer.settlements, "counted as the ledger counts it");
            assertEquals(0, traffic.inFlight(), "the request's slots went back");
        }

        @Test
        void aClientThatLeftDuringItsAdmissionIsRecordedCancelledAndNothingGoesUpstream() {
            // The surface saw the client's connection close while the request waited for its admission (a busy or
            // just-started instance): nothing goes upstream, the hold goes back whole, the ledger says cancelled.
            RecordingObserver observer = notReady(true);
            String requestId = newRequestId();

            assertThrows(ClientAnsweredException.class, () -> service().start(principal,
                    request("test/solo", PROMPT, 100), requestId, ORIGIN, observer));

            InMemoryBillingLedger.LedgerRow row = ledger.ledgerRow(requestId).orElseThrow();
            assertEquals("cancelled", row.status());
            assertEquals(Usd.ZERO, row.cost());
            assertTrue(ledger.openHoldList().isEmpty());
            assertEquals(OPENING_BALANCE, available());
            assertTrue(alpha.calls().isEmpty(), "nothing went upstream");
            assertEquals(List.of("cancelled null 0+0 0"), observer.settlements);
            assertEquals(0, traffic.inFlight(), "the request's slots went back");
        }

        @Test
        void aKeyLimitBelowTheHoldIsInsufficientQuotaAndNothingGoesUpstream() {
            ledger.limitKey(principal.apiKeyId(), SpendLimit.lifetime(micros(500)));
            start("test/solo", 100); // holds 303 of 500

            InsufficientQuotaException refused = assertThrows(InsufficientQuotaException.class,
                    () -> start("test/solo", 100)); // 303 + 303 > 500

            assertEquals(InsufficientQuotaException.Reason.KEY_LIMIT, refused.reason());
            assertEquals("insufficient_quota", refused.code());
            assertEquals(1, alpha.calls().size(), "only the admitted request went upstream");
            assertEquals(OPENING_BALANCE.minusFloorZero(micros(303)), available());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Traffic limits (§8.1) in front of the money

    @Nested
    class TrafficLimitsFirst {

        private final Bucket keySlots = new Bucket(LimitScope.KEY, principal.apiKeyId().toString(), "inflight");
        private final Bucket accountSlots = new Bucket(LimitScope.ACCOUNT, principal.accountId().toString(),
                "inflight");

        private void keyBurstOf(long burst) {
            TrafficLimits d = TrafficLimits.DEFAULTS;
            traffic = new TrafficGuard(new TrafficRules(new TrafficLimits(new TrafficLimits.RequestRate(600, burst),
                    d.keyIp(), d.account(), d.ip(), d.burstWindow(), d.keyConcurrency(), d.accountConcurrency(),
                    d.distinctIpsPerKey(), d.distinctKeysPerIp(), d.distinctWindow(), d.keyTokens(), d.accountTokens(),
                    d.cooldown(), d.behaviour(), d.minimalWords(), d.playground())), quotas, clock, true);
        }

        private void assertSlotsFree() {
            assertEquals(0, quotas.inFlight(keySlots), "the key's slot went back");
            assertEquals(0, quotas.inFlight(accountSlots), "the account's slot went back");
            assertEquals(0, traffic.inFlight());
        }

        @Test
        void aRequestOverABucketIsRefusedBeforeAnyMoneyIsHeld() {
            keyBurstOf(2);
            start("test/solo", 100);
            start("test/solo", 100);

            RateLimitExceededException refused = assertThrows(RateLimitExceededException.class,
                    () -> start("test/solo", 100));

            assertEquals("rate_limit_exceeded", refused.code());
            assertEquals(Refusal.Kind.REQUESTS, refused.refusal().kind());
            assertEquals(LimitScope.KEY, refused.refusal().scope());
            assertEquals(10, refused.refusal().retryAfterSeconds(), "the burst window is 10 s");
            assertEquals(0, refused.report().requests().remaining());
            assertEquals(2, ledger.placeHoldCalls(), "no hold was attempted for the refused request");
            assertEquals(2, alpha.calls().size(), "nothing of it went upstream");
            assertEquals(2, quotas.inFlight(keySlots), "it took no slot either");
        }

        @Test
        void theObserverLearnsTheDecidingBucketsBeforeAnythingElse() {
            AtomicReference<RateLimitReport> reported = new AtomicReference<>();
            RecordingObserver observer = new RecordingObserver() {
                @Override
                public void onAdmitted(RateLimitReport report) {
                    assertTrue(events.isEmpty());
                    reported.set(report);
                }
            };
            service().start(principal, request("test/solo", PROMPT, 100), newRequestId(), ORIGIN, observer);

            RateLimitReport report = reported.get();
            assertNotNull(report);
            assertEquals(LimitScope.KEY, report.requests().scope(), "the key's 200 per 10 s is the tightest");
            assertEquals(200, report.requests().limit());
            assertEquals(199, report.requests().remaining());
            assertEquals(2_000_000 - 103, report.tokens().remaining(), "3 prompt + 100 output tokens estimated");
        }

        /**
         * A review (2026-11-29): an observer that threw as the answer ended (writing the last of it to the client)
         * left the slots taken and the hold unsettled for good, since the run was done and nothing else ended it.
         */
        @Test
        void slotsGoBackAndTheHoldIsSettledWhateverTheObserverThrows() {
            String requestId = newRequestId();
            RecordingObserver throwing = new RecordingObserver() {
                @Override
                public void onComplete(CompletionResult completion) {
                    throw new IllegalStateException("the client's connection broke as the answer was written");
                }

                @Override
                public void onSettled(String provider, String status, TokenUsage billed, Usd charged) {
                    throw new IllegalStateException("a metric could not be recorded");
                }
            };
            service().start(principal, request("test/solo", PROMPT, 100), requestId, ORIGIN, throwing);
            assertEquals(1, quotas.inFlight(keySlots));
            ScriptedModelProvider.Call call = alpha.onlyCall().firstByte().delta("a");
            assertThrows(IllegalStateException.class, () -> call.finish("stop", new TokenUsage(3, 1)));
            blocking.runAll();
            assertSlotsFree();
            assertEquals("completed", settledRow(requestId).status());
        }

        /**
         * A client that keeps exactly its cap in flight sends its next request the moment it has an answer: the
         * slots are on their way back (queued on the blocking executor, ahead of the settlement) before the last of
         * the answer is written, whether the answer completes or fails. Given back after the write, 2 % of such
         * requests were refused for a slot of a finished request (measured 2026-11-29).
         */
        /**
         * An observer that notes the key's slots in use as the last of each answer is written, after running what
         * the blocking executor holds by then when {@code runQueued} (its thread, running while the answer is
         * written).
         */
        private RecordingObserver notingSlotsAtTheEnd(List<Long> inFlightAsTheAnswerEnds, boolean runQueued) {
            return new RecordingObserver() {
                @Override
                public void onComplete(CompletionResult completion) {
                    note();
                }

                @Override
                public void onFailure(CompletionFailure failure) {
                    note();
                }

                private void note() {
                    if (runQueued) {
                        blocking.runAll();
                    }
                    inFlightAsTheAnswerEnds.add(quotas.inFlight(keySlots));
                }
            };
        }

        @Test
        void slotsAreOnTheirWayBackBeforeTheLastOfTheAnswerIsWritten() {
            List<Long> inFlightAsTheAnswerEnds = new ArrayList<>();
            RecordingObserver observer = notingSlotsAtTheEnd(inFlightAsTheAnswerEnds, true);
            service().start(principal, request("test/solo", PROMPT, 100), newRequestId(), ORIGIN, observer);
            service().start(principal, request("test/solo", PROMPT, 100), newRequestId(), ORIGIN, observer);
            assertEquals(2, quotas.inFlight(keySlots));

            alpha.calls().get(0).firstByte().delta("a").finish("stop", new TokenUsage(3, 1));
            alpha.calls().get(1).firstByte().delta("a").fail(500, true, false, null);

            assertEquals(List.of(1L, 0L), inFlightAsTheAnswerEnds);
            blocking.runAll();
            assertSlotsFree();
            assertEquals(0, ledger.openHolds(), "both settled, once each");
        }

        /**
         * Counters in this process give the slots back on the thread that decides the ending, before the last of the
         * answer is written — nothing queued that a loaded executor could run after the client's next request.
         */
        @Test
        void countersInThisProcessGiveTheSlotsBackBeforeTheLastWriteWithNoTaskQueued() {
            quotas.releaseInPlace();
            List<Long> inFlightAsTheAnswerEnds = new ArrayList<>();
            RecordingObserver observer = notingSlotsAtTheEnd(inFlightAsTheAnswerEnds, false);
            service().start(principal, request("test/solo", PROMPT, 100), newRequestId(), ORIGIN, observer);
            service().start(principal, request("test/solo", PROMPT, 100), newRequestId(), ORIGIN, observer);
            assertEquals(2, quotas.inFlight(keySlots));

            alpha.calls().get(0).firstByte().delta("a").finish("stop", new TokenUsage(3, 1));
            alpha.calls().get(1).firstByte().delta("a").fail(500, true, false, null);

            assertEquals(List.of(1L, 0L), inFlightAsTheAnswerEnds, "given back with no executor task run");
            assertEquals(2, ledger.openHolds(), "the settlements are still queued: only the slots went first");
            blocking.runAll();
            assertSlotsFree();
            assertEquals(0, ledger.openHolds(), "both settled, once each");
        }

        @Test
        void slotsGoBackWhenTheCompletionFinishes() {
            start("test/solo", 100);
            assertEquals(1, quotas.inFlight(keySlots));
            alpha.onlyCall().firstByte().delta("a").finish("stop", new TokenUsage(3, 1));
            blocking.runAll();
            assertSlotsFree();
        }

        @Test
        void slotsGoBackWhenTheClientLeaves() {
            Started started = start("test/solo", 100);
            started.running().cancel();
            blocking.runAll();
            assertSlotsFree();
        }

        @Test
        void slotsGoBackWhenTheUpstreamFails() {
            start("test/solo", 100);
            alpha.onlyCall().fail(400, false, false, null);
            blocking.runAll();
            assertSlotsFree();
        }

        @Test
        void slotsGoBackWhenTheHoldIsRefused() {
            ledger.openAccount(principal.accountId(), micros(1));
            assertThrows(InsufficientQuotaException.class, () -> start("test/solo", 100));
            assertSlotsFree();
        }

        @Test
        void slotsGoBackWhenTheDatabaseFailsThePlacingOfTheHold() {
            billing = new BillingLedger() {
                @Override
                public HoldOutcome placeHold(HoldRequest hold) {
                    throw new IllegalStateException("database unavailable");
                }

                @Override
                public boolean settle(Settlement settlement) {
                    return ledger.settle(settlement);
                }

                @Override
                public long openHolds() {
                    return ledger.openHolds();
                }

                @Override
                public int releaseExpired(Instant now, int max) {
                    return ledger.releaseExpired(now, max);
                }
            };
            assertThrows(IllegalStateException.class, () -> start("test/solo", 100));
            assertSlotsFree();
        }

        @Test
        void theKeysConcurrencyCapRefusesTheFiftyFirst() {
            for (int i = 0; i < 50; i++) {
                start(request("test/solo", "prompt " + "word".repeat(i + 1), 10));
            }
            RateLimitExceededException refused = assertThrows(RateLimitExceededException.class,
                    () -> start(request("test/solo", "one more question", 10)));
            assertEquals(Refusal.Kind.CONCURRENCY, refused.refusal().kind());
            assertEquals(1, refused.refusal().retryAfterSeconds());
            alpha.calls().get(0).cancel();
            alpha.calls().get(0).fail(500, false, false, null);
            blocking.runAll();
            start(request("test/solo", "one more question", 10));
            assertEquals(51, alpha.calls().size());
        }

        @Test
        void aStoreThatCannotBeReachedFailsTheRequestAsUnavailable() {
            traffic = new TrafficGuard(new TrafficRules(TrafficLimits.DEFAULTS), new QuotaCounter() {
                @Override
                public QuotaDecision decide(TrafficDemand demand, Instant now) {
                    throw new QuotaCounter.Unavailable("redis down", null);
                }

                @Override
                public void release(SlotLease lease, Instant now) {
                    throw new QuotaCounter.Unavailable("redis down", null);
                }
            }, clock, true);
            assertThrows(TrafficLimitsUnavailableException.class, () -> start("test/solo", 100));
            assertNothingHeldOrSent();
        }

        @Test
        void disabledLimitsCountNothing() {
            traffic = new TrafficGuard(new TrafficRules(TrafficLimits.DEFAULTS), quotas, clock, false);
            start("test/solo", 100);
            assertEquals(0, quotas.inFlight(keySlots));
            assertEquals(1, alpha.calls().size());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Settlement

    @Test
    void aPlaygroundRequestThatCouldNeverFitTheTokenBudgetIsTheClientsFaultNotAWait() {
        // §8.2's global token budget refuses by waiting (429 with Retry-After); a request larger than the whole
        // budget would wait for ever, so it is refused as invalid, naming what to make smaller.
        TrafficLimits d = TrafficLimits.DEFAULTS;
        TrafficLimits.PlaygroundLimits p = d.playground();
        TrafficLimits small = new TrafficLimits(d.key(), d.keyIp(), d.account(), d.ip(), d.burstWindow(),
                d.keyConcurrency(), d.accountConcurrency(), d.distinctIpsPerKey(), d.distinctKeysPerIp(),
                d.distinctWindow(), d.keyTokens(), d.accountTokens(), d.cooldown(), d.behaviour(), d.minimalWords(),
                new TrafficLimits.PlaygroundLimits(p.perMinute(), p.perHour(), p.principalConcurrency(),
                        p.allPerMinute(), 100, p.allConcurrency(), p.userConcurrency()));
        traffic = new TrafficGuard(new TrafficRules(small), quotas, clock, true);
        PlaygroundChatService playground = new PlaygroundChatService(service(), traffic, settlement -> { },
                new PlaygroundSettings(List.of(new ModelId("test/solo")), 200, 1_000, false));
        TrafficOrigin visitor = new TrafficOrigin("203.0.113.7", "browser-1");

        DomainRuleViolation output = assertThrows(DomainRuleViolation.class, () -> playground.startAnonymous(
                request("test/solo", PROMPT, 150), newRequestId(), visitor, new RecordingObserver()));
        assertEquals("max_tokens", output.field());
        assertTrue(output.getMessage().contains("budget of 100 tokens per minute"), output.getMessage());
        DomainRuleViolation prompt = assertThrows(DomainRuleViolation.class, () -> playground.startAnonymous(
                request("test/solo", "word ".repeat(120).strip(), 5), newRequestId(), visitor,
                new RecordingObserver()));
        assertEquals("messages", prompt.field());
        assertTrue(alpha.calls().isEmpty(), "nothing went upstream");

        RecordingObserver fits = new RecordingObserver();
        playground.startAnonymous(request("test/solo", PROMPT, 50), newRequestId(), visitor, fits);
        assertEquals(1, alpha.calls().size(), "a request within the budget runs");
    }

    @Test
    void anAnonymousPlaygroundPromptOverItsCharacterCapIsRefusedBeforeAnythingReadsIt() {
        // Anyone may send these: an oversized prompt is refused by its length, before redaction and the tokenizer
        // (whose cost grows with it) and without touching the traffic limits.
        PlaygroundChatService playground = new PlaygroundChatService(service(), traffic, settlement -> { },
                new PlaygroundSettings(List.of(new ModelId("test/solo")), 200, 1_000, false));
        TrafficOrigin visitor = new TrafficOrigin("203.0.113.8", "browser-2");
        DomainRuleViolation refused = assertThrows(DomainRuleViolation.class, () -> playground.startAnonymous(
                request("test/solo", "x".repeat(1_001), 5), newRequestId(), visitor, new RecordingObserver()));
        assertEquals("messages", refused.field());
        assertTrue(refused.getMessage().contains("at most 1000 characters; this one has 1001"), refused.getMessage());
        assertTrue(alpha.calls().isEmpty(), "nothing went upstream");

        RecordingObserver fits = new RecordingObserver();
        playground.startAnonymous(request("test/solo", "x".repeat(900), 5), newRequestId(), visitor, fits);
        assertEquals(1, alpha.calls().size(), "a prompt within the cap runs");

        // Characters as a person counts them: 600 emoji are 600 characters (1,200 UTF-16 units), within the cap.
        playground.startAnonymous(request("test/solo", "\uD83D\uDE00".repeat(600), 5), newRequestId(),
                new TrafficOrigin("203.0.113.9", "browser-3"), new RecordingObserver());
        assertEquals(2, alpha.calls().size(), "600 emoji are 600 characters");
        DomainRuleViolation emoji = assertThrows(DomainRuleViolation.class, () -> playground.startAnonymous(
                request("test/solo", "\uD83D\uDE00".repeat(1_001), 5), newRequestId(),
                new TrafficOrigin("203.0.113.10", "browser-4"), new RecordingObserver()));
        assertTrue(emoji.getMessage().contains("this one has 1001"), emoji.getMessage());
    }

    @Nested
    class Settlement {

        /**
         * The ledger hears that the request ended before its answer (or error) is written: a client that sends its
         * next request the moment it has the answer must find the settlement on its way (told after the answer, it
         * was sometimes not yet on a loaded machine, and the next request was refused by its key's limit).
         */
        @Test
        void theLedgerHearsTheRequestEndedBeforeItsAnswerOrErrorIsWritten() {
            List<List<String>> heard = Collections.synchronizedList(new ArrayList<>());
            RecordingObserver observer = new RecordingObserver() {
                @Override
                public void onComplete(CompletionResult completion) {
                    heard.add(ledger.endings());
                    super.onComplete(completion);
                }

                @Override
                public void onFailure(CompletionFailure failed) {
                    heard.add(ledger.endings());
                    super.onFailure(failed);
                }
            };
            String completed = newRequestId();
            service().start(principal, request("test/solo", PROMPT, 100), completed, ORIGIN, observer);
            alpha.onlyCall().firstByte().delta("hello");
            alpha.onlyCall().finish("stop", new TokenUsage(7, 5));
            String account = " " + principal.accountId().value();
            assertEquals(List.of(List.of(completed + account)), heard, "told before the answer");

            String failed = newRequestId();
            service().start(principal, request("test/solo", PROMPT, 100), failed, ORIGIN, observer);
            alpha.lastCall().fail(400, false, false, null);
            assertEquals(List.of(completed + account, failed + account), heard.get(1), "told before the error");
        }

        @Test
        void aCompletedRequestIsChargedTheProviderReportedUsage() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("hello").delta(" there");
            alpha.onlyCall().finish("stop", new TokenUsage(7, 5));

            assertEquals(List.of("started:alpha", "delta", "delta", "complete"), started.observer().events);
            assertEquals("hello there", started.observer().text.toString());
            CompletionResult result = started.observer().result;
            assertEquals("stop", result.finishReason());
            assertEquals(new TokenUsage(7, 5), result.usage());
            assertEquals("alpha", result.provider());

            // The settlement is a blocking write: it runs on the blocking executor, not on the provider's thread.
            assertTrue(ledger.openHold(started.requestId()).isPresent(), "not settled inline");
            assertEquals(2, blocking.pending(), "the slots' release, then the settlement");
            // But the ledger already knows it is coming (a next request of the account may wait for its refund).
            assertEquals(List.of(started.requestId() + " " + principal.accountId().value()), ledger.endings());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());

            Usd expected = Pricing.cost(ALPHA, new TokenUsage(7, 5));
            assertEquals(micros(7 + 15), expected);
            assertEquals(expected, row.cost());
            assertEquals(micros(303), row.held());
            assertEquals("completed", row.status());
            assertEquals("test/solo", row.model());
            assertEquals("alpha", row.provider());
            assertEquals(new TokenUsage(7, 5), row.usage());
            assertFalse(row.streamed());
            assertEquals(OPENING_BALANCE.minusFloorZero(expected), available());
            assertEquals(Usd.ZERO, ledger.reserved(principal.accountId()));
            assertTrue(ledger.openHoldList().isEmpty());
        }

        @Test
        void chargesAreRoundedUpToTheMicroDollar() {
            Started started = start("test/cheap", 100);
            alpha.onlyCall().firstByte().delta("x");
            alpha.onlyCall().finish("stop", new TokenUsage(3, 5));

            // (3 × 150,000 + 5 × 600,000) / 1,000,000 = 3.45 µUSD → 4.
            assertEquals(micros(4), settledRow(started.requestId()).cost());
        }

        @Test
        void theChargeNeverExceedsTheHold() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("long answer");
            alpha.onlyCall().finish("length", new TokenUsage(3, 50_000)); // the provider overran max_tokens

            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(micros(303), row.cost());
            assertEquals(OPENING_BALANCE.minusFloorZero(micros(303)), available());
        }

        @Test
        void anAbsurdReportedUsageStillCompletesAndIsChargedAtMostTheHold() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("x");
            // A broken or hostile upstream reports more tokens than can be priced.
            try {
                alpha.onlyCall().finish("stop", new TokenUsage(3, 500_000_000L));
            } catch (RuntimeException e) {
                // the provider's thread would die here; what matters is what the client and the ledger see
            }

            assertEquals(1, started.observer().terminalEvents(), "the client must get an answer: "
                    + started.observer().events);
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(micros(303), row.cost(), "capped at the hold");
            assertTrue(ledger.openHoldList().isEmpty(), "the hold must not wait for the sweeper");
            assertEquals(new TokenUsage(3, 100), started.observer().result.usage(),
                    "the output the client is shown is what it was allowed and billed: max_tokens");
            assertEquals(new TokenUsage(3, 100), row.usage());
        }

        @Test
        void aReportedPromptBeyondTheContextWindowIsShownAndRecordedAsTheWindow() {
            // The model's context is 1000 tokens: a provider cannot have read more, whatever it reports.
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("x").finish("stop", new TokenUsage(1_000_000_000_000L, 1));
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(1000, 1), started.observer().result.usage());
            assertEquals(new TokenUsage(1000, 1), row.usage());
            assertTrue(row.cost().compareTo(micros(303)) <= 0, "never more than the hold: " + row.cost());
        }

        @Test
        void withoutReportedUsageThePromptAndTheDeliveredTextAreCounted() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("one two").delta(" three");
            alpha.onlyCall().finish("stop", null);

            assertEquals(new TokenUsage(3, 3), started.observer().result.usage());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(3, 3), row.usage());
            assertEquals(micros(3 + 9), row.cost());
        }

        @Test
        void reasoningAndRefusalTextReachTheClientAndAreCountedWithoutReportedUsage() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().text(AnswerChannel.REASONING, "let me think").delta("one")
                    .text(AnswerChannel.REFUSAL, "no more");
            alpha.onlyCall().finish("stop", null);

            assertEquals(List.of("started:alpha", "reasoning", "delta", "refusal", "complete"),
                    started.observer().events);
            assertEquals(new TokenUsage(3, 6), started.observer().result.usage(), "3 + 1 + 2 output words");
            assertEquals(new TokenUsage(3, 6), settledRow(started.requestId()).usage());
        }

        @Test
        void reasoningIsOutputSoAFailureAfterItBillsItAndDoesNotFallBack() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().text(AnswerChannel.REASONING, "one two");
            call.fail(503, true, false, null);

            assertTrue(beta.calls().isEmpty(), "no fallback after reasoning output");
            assertEquals(List.of("started:alpha", "reasoning", "failure"), started.observer().events);
            assertTrue(started.observer().failure.afterOutput());
            assertEquals(new TokenUsage(3, 2), settledRow(started.requestId()).usage());
        }

        @Test
        void countedTokensNeverExceedTheAllowanceTheProviderWasGiven() {
            // Another tokenizer may count more in the text than the provider produced; it cannot have produced more
            // than max_tokens, finished or cancelled.
            Started finished = start("test/solo", 2);
            alpha.onlyCall().firstByte().delta("one two three four");
            alpha.onlyCall().finish("length", null);
            assertEquals(new TokenUsage(3, 2), finished.observer().result.usage());
            assertEquals(new TokenUsage(3, 2), settledRow(finished.requestId()).usage());

            Started cancelled = start("test/solo", 2);
            alpha.lastCall().firstByte().delta("one two three");
            cancelled.running().cancel();
            assertEquals(new TokenUsage(3, 2), settledRow(cancelled.requestId()).usage());
        }

        @Test
        void theClientSeesTheStartOnceBeforeTheFirstDelta() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte();
            call.firstByte();
            call.delta("");  // empty deltas are not output
            call.delta("a");
            call.finish("stop", new TokenUsage(3, 1));

            assertEquals(List.of("started:alpha", "delta", "complete"), started.observer().events);
        }

        @Test
        void theClientsStreamStartsWithTheFirstOutputNotWithTheProvidersStatusLine() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().firstByte(); // a 200 and headers, or a keep-alive comment: no output yet
            assertTrue(started.observer().events.isEmpty(), "nothing committed to the client yet");
            alpha.onlyCall().fail(502, true, false, null); // an error event before any output

            beta.onlyCall().firstByte();
            assertTrue(started.observer().events.isEmpty());
            beta.onlyCall().fail(502, false, false, null);

            assertEquals(List.of("failure"), started.observer().events, "never started: the real status");
            assertEquals(502, started.observer().failure.status());
            assertFalse(started.observer().failure.afterOutput());
        }

        @Test
        void aFinishWithoutTextStartsTheStreamToo() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().finish("stop", new TokenUsage(3, 0));
            assertEquals(List.of("started:alpha", "complete"), started.observer().events);
        }

        @Test
        void eventsAfterTheEndAreIgnoredAndSettleNothingMore() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            call.finish("stop", new TokenUsage(3, 1));
            call.delta("late");
            call.finish("stop", new TokenUsage(3, 99));
            call.fail(500, true, false, null);
            started.running().cancel();

            assertEquals(List.of("started:alpha", "delta", "complete"), started.observer().events);
            assertEquals(2, blocking.pending(), "the slots' release and one settlement");
            assertEquals(micros(3 + 3), settledRow(started.requestId()).cost());
            assertEquals(1, ledger.settleCalls());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Failures, fallback and retries

    @Nested
    class Failures {

        @Test
        void aRetryableFailureBeforeOutputFallsBackToTheNextRoute() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(503, true, false, null);

            ScriptedModelProvider.Call fallback = beta.onlyCall();
            assertEquals(BETA, fallback.route());
            assertEquals(100, fallback.maxTokens());
            assertEquals(new ModelId("test/pair"), fallback.request().model());
            assertTrue(started.observer().events.isEmpty(), "the client sees nothing of the failed attempt");
            assertEquals(List.of("alpha 503"), started.observer().failedAttempts, "monitoring does");

            fallback.firstByte().delta("ok");
            fallback.finish("stop", new TokenUsage(3, 5));

            assertEquals(List.of("started:beta", "delta", "complete"), started.observer().events);
            assertEquals("beta", started.observer().result.provider());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(micros(3 * 2 + 5 * 4), row.cost(), "priced with the route that served it");
            assertEquals("beta", row.provider());
            assertEquals(micros(406), row.held());
        }

        @Test
        void aProviderThatCannotEvenStartCountsAsARetryableFailure() {
            alpha.throwOnCall(new IllegalStateException("connection refused"));
            Started started = start("test/pair", 100);

            beta.onlyCall().firstByte().delta("ok");
            beta.onlyCall().finish("stop", new TokenUsage(3, 1));
            assertEquals("beta", started.observer().result.provider());
        }

        @Test
        void whenEveryRouteIsRateLimitedTheClientGetsCapacityReachedWithRetryAfter() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(429, true, true, Duration.ofSeconds(3));
            beta.onlyCall().fail(429, true, true, null);

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, started.observer().events.toString());
            assertEquals(429, failure.status());
            assertEquals("transfer_agent_capacity_reached", failure.code());
            assertTrue(failure.retryAfterSeconds() >= 1, "Retry-After is at least 1 s");
            assertEquals(3, failure.retryAfterSeconds(), "the provider's own hint");
            assertFalse(failure.afterOutput());

            timers.advance(Duration.ofMinutes(5));
            assertEquals(1, alpha.calls().size(), "no retry pass once every provider said 429");
            assertEquals(1, beta.calls().size());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(Usd.ZERO, row.cost());
            assertEquals("failed", row.status());
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void capacityReachedWithoutAHintStillSaysRetryAfterOneSecond() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(429, true, true, null);
            beta.onlyCall().fail(429, true, true, Duration.ofMillis(300));

            assertEquals(429, started.observer().failure.status());
            assertEquals(1, started.observer().failure.retryAfterSeconds());
        }

        @Test
        void aFractionalRetryAfterHintIsRoundedUpNotDown() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().fail(429, true, true, Duration.ofMillis(2500));

            // Telling the client 2 s when the provider asked for 2.5 s makes its retry arrive too early.
            assertEquals(3, started.observer().failure.retryAfterSeconds());
        }

        @Test
        void aNonRetryableRejectionDoesNotFallBack() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(400, false, false, null);

            assertTrue(beta.calls().isEmpty(), "a request the upstream rejects is not sent elsewhere");
            CompletionFailure failure = started.observer().failure;
            assertEquals(400, failure.status());
            assertEquals("upstream_rejected", failure.code());
            assertFalse(failure.afterOutput());
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost());
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void aRequestTheProviderCannotExpressIsTheClients400NamingTheFieldAndCostsNothing() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().refuseAsInvalid("messages[1].tool_calls[0].function.arguments", "must be a JSON object");

            assertTrue(beta.calls().isEmpty(), "the client's request, not a provider failure: no fallback");
            CompletionFailure failure = started.observer().failure;
            assertEquals(400, failure.status());
            assertEquals("invalid_request_error", failure.type());
            assertEquals("invalid_request", failure.code());
            assertEquals("messages[1].tool_calls[0].function.arguments", failure.param());
            assertEquals("must be a JSON object", failure.message(), "no provider-failure wording around it");
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost());
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void retryableFailuresEverywhereAreRetriedWithBackoffThenReported() {
            Started started = start("test/pair", 100);
            alpha.lastCall().fail(503, true, false, null);
            beta.lastCall().fail(502, true, false, null);

            timers.advance(Duration.ofMillis(999));
            assertEquals(1, alpha.calls().size(), "the first retry pass waits backoffBase (1 s)");
            timers.advance(Duration.ofMillis(1));
            assertEquals(2, alpha.calls().size());
            alpha.lastCall().fail(503, true, false, null);
            beta.lastCall().fail(503, true, false, null);

            timers.advance(Duration.ofMillis(1999));
            assertEquals(2, alpha.calls().size(), "the second pass waits twice as long");
            timers.advance(Duration.ofMillis(1));
            assertEquals(3, alpha.calls().size());
            alpha.lastCall().fail(503, true, false, null);
            assertNull(started.observer().failure);
            beta.lastCall().fail(503, true, false, null);

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "after maxRetries (2) passes the failure is reported");
            assertTrue(failure.status() >= 500, "a temporary upstream failure: " + failure.status());
            assertEquals("upstream_error", failure.code());
            assertFalse(failure.afterOutput());
            timers.advance(Duration.ofMinutes(1));
            assertEquals(3, alpha.calls().size());
            assertEquals(3, beta.calls().size());
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost());
        }

        @Test
        void aProviderThatRefusesTheGatewayItselfIsSkippedForTheNextAndNotRetried() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(401, false, false, null);

            assertEquals(1, beta.calls().size(), "the gateway's key at alpha is wrong: beta may still serve");
            beta.lastCall().fail(503, true, false, null);
            assertAlphaRetiredAndBetaServesTheRetryPass(started);
        }

        /** alpha left the request and beta failed once: the retry pass asks beta alone, which answers. */
        private void assertAlphaRetiredAndBetaServesTheRetryPass(Started started) {
            timers.advance(Duration.ofSeconds(1));
            assertEquals(1, alpha.calls().size(), "alpha is not asked again in the retry pass");
            assertEquals(2, beta.calls().size());
            beta.lastCall().firstByte().delta("ok");
            beta.lastCall().finish("stop", new TokenUsage(3, 1));
            assertEquals(List.of("started:beta", "delta", "complete"), started.observer().events);
            assertEquals("stop", started.observer().result.finishReason());
        }

        @Test
        void aProviderThatAnswersSomethingUnreadableIsSkippedForTheNextAndNotAskedAgain() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().firstByte();
            alpha.onlyCall().answerBroken();

            assertEquals(1, beta.calls().size(), "another provider may answer properly");
            beta.lastCall().fail(503, true, false, null);
            assertAlphaRetiredAndBetaServesTheRetryPass(started);
        }

        @Test
        void whenEveryProviderRefusesTheGatewayTheClientGetsABadGatewayAtOnce() {
            Started started = start("test/pair", 100);
            alpha.onlyCall().fail(403, false, false, null);
            beta.onlyCall().fail(404, false, false, null);

            CompletionFailure failure = started.observer().failure;
            assertEquals(502, failure.status(), "the gateway's configuration, not the client's request");
            assertEquals("upstream_error", failure.code());
            timers.advance(Duration.ofMinutes(1));
            assertEquals(1, alpha.calls().size(), "no retry pass");
            assertEquals(1, beta.calls().size());
            assertEquals(TokenUsage.NONE, settledRow(started.requestId()).usage());
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void aProviderAskingForALongWaitEndsTheRequestNowRatherThanHoldingIt() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().fail(503, true, false, Duration.ofHours(1));

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "not left waiting an hour with its hold");
            assertEquals(502, failure.status());
            assertTrue(failure.message().contains("3600 s"), failure.message());
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost());
            assertEquals(OPENING_BALANCE, available(), "the hold is released");
        }

        @Test
        void aProviderAskingForALongWaitLeavesTheRequestAndTheOthersAreRetried() {
            Started started = start("test/pair", 100);
            alpha.lastCall().fail(429, true, true, Duration.ofDays(1));
            beta.lastCall().fail(503, true, false, null);

            assertNull(started.observer().failure, "beta may still answer");
            assertAlphaRetiredAndBetaServesTheRetryPass(started); // alpha said a day: not asked again
        }

        @Test
        void capacityReachedTellsTheClientTheProvidersWaitExactly() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().fail(429, true, true, Duration.ofHours(1));

            assertEquals(429, started.observer().failure.status());
            // An audit: it was cut to 60 s, which the openai SDK then slept through and retried an hour too early.
            assertEquals(3600, started.observer().failure.retryAfterSeconds(), "accurate (sdk-contract.md)");
        }

        @Test
        void aRetryPassWaitsForTheLongestHintOfItsProviders() {
            Started started = start("test/pair", 100);
            alpha.lastCall().fail(429, true, true, Duration.ofSeconds(7));
            beta.lastCall().fail(503, true, false, null);

            timers.advance(Duration.ofMillis(6999));
            assertEquals(1, alpha.calls().size(), "alpha asked for 7 s: not asked again before");
            timers.advance(Duration.ofMillis(1));
            assertEquals(2, alpha.calls().size());
            assertNull(started.observer().failure);
        }

        @Test
        void aRetryPassWaitsForTheProvidersRetryAfterHint() {
            Started started = start("test/solo", 100);
            alpha.lastCall().fail(503, true, false, Duration.ofSeconds(5));

            timers.advance(Duration.ofMillis(4999));
            assertEquals(1, alpha.calls().size());
            timers.advance(Duration.ofMillis(1));
            assertEquals(2, alpha.calls().size());
            alpha.lastCall().firstByte().delta("ok");
            alpha.lastCall().finish("stop", new TokenUsage(3, 1));
            assertEquals("stop", started.observer().result.finishReason());
        }

        @Test
        void aFailureMidStreamBillsThePromptAndTheDeliveredTokensAndDoesNotFallBack() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("one two").delta(" three");
            call.fail(503, true, false, null); // retryable, but output was already delivered

            assertTrue(beta.calls().isEmpty(), "no fallback after output");
            CompletionFailure failure = started.observer().failure;
            assertTrue(failure.afterOutput());
            assertEquals("upstream_error", failure.code());
            assertEquals(List.of("started:alpha", "delta", "delta", "failure"), started.observer().events);
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(3, 3), row.usage());
            assertEquals(micros(3 + 3 * 3), row.cost(), "alpha's price for 3 prompt + 3 delivered tokens");
            assertEquals("failed", row.status());
            assertEquals(OPENING_BALANCE.minusFloorZero(micros(12)), available());
        }

        /**
         * An audit (2026-11-29): Anthropic tells its count of the prompt (cache included) in message_start; a
         * stream that broke after it, or a client that left, was billed the gateway's estimate instead — 14 tokens
         * for a prompt of 3,010. The count is the one billed, within the model's context; another provider's count
         * does not carry over to the route that took over.
         */
        @Test
        void thePromptCountAProviderToldBeforeTheEndIsBilledWhenTheAnswerDoesNotFinish() {
            Started failing = start("test/pair", 100);
            alpha.onlyCall().promptCounted(40).firstByte().delta("one two").fail(503, true, false, null);
            assertEquals(new TokenUsage(40, 2), settledRow(failing.requestId()).usage());

            Started leaving = start("test/solo", 100);
            alpha.calls().get(1).promptCounted(25).firstByte().delta("a b");
            leaving.running().cancel();
            assertEquals(new TokenUsage(25, 2), settledRow(leaving.requestId()).usage());

            Started huge = start("test/solo", 100);
            alpha.calls().get(2).promptCounted(Long.MAX_VALUE).firstByte().delta("a").fail(502, false, false, null);
            assertEquals(new TokenUsage(1000, 1), settledRow(huge.requestId()).usage(), "at most the context");

            Started fellBack = start("test/pair", 100);
            alpha.calls().get(3).promptCounted(40).fail(503, true, false, null);
            beta.onlyCall().firstByte().delta("x").fail(502, false, false, null);
            assertEquals(new TokenUsage(3, 1), settledRow(fellBack.requestId()).usage(), "beta told no count");
        }

        @Test
        void aToolCallDeltaIsOutputSoAFailureAfterItDoesNotFallBack() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().toolCalls("[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]");
            call.fail(503, true, false, null);

            assertTrue(beta.calls().isEmpty(), "no fallback after tool-call output");
            assertEquals(List.of("started:alpha", "tool_calls", "failure"), started.observer().events);
            assertTrue(started.observer().failure.afterOutput());
            assertTrue(settledRow(started.requestId()).cost().isPositive(), "delivered output is billed");
        }

        @Test
        void toolCallsWithoutUsageAreBilledTheirNameAndArgumentsHoweverFinelyTheyCome() {
            String arguments = "{\\\"city\\\": \\\"San Francisco\\\", \\\"unit\\\": \\\"celsius\\\"}";
            Started whole = start("test/pair", 100);
            ScriptedModelProvider.Call one = alpha.calls().get(alpha.calls().size() - 1);
            one.firstByte().toolCalls("[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":"
                    + "{\"name\":\"get_weather\",\"arguments\":\"" + arguments + "\"}}]");
            one.finish("tool_calls", null);

            Started pieces = start("test/pair", 100);
            ScriptedModelProvider.Call many = alpha.calls().get(alpha.calls().size() - 1);
            many.firstByte().toolCalls("[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":"
                    + "{\"name\":\"get_weather\",\"arguments\":\"\"}}]");
            for (String piece : arguments.split(" ")) {
                many.toolCalls("[{\"index\":0,\"function\":{\"arguments\":\"" + piece + " \"}}]");
            }
            many.finish("tool_calls", null);

            Started repeating = start("test/pair", 100);
            ScriptedModelProvider.Call repeats = alpha.calls().get(alpha.calls().size() - 1);
            for (String piece : arguments.split(" ")) {
                // A provider that repeats the name in every piece is billed for it once.
                repeats.firstByte().toolCalls("[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"" + piece + " \"}}]");
            }
            repeats.finish("tool_calls", null);

            TokenUsage billed = settledRow(whole.requestId()).usage();
            assertEquals(5, billed.completionTokens(), "get_weather and the four words of the arguments: " + billed);
            assertEquals(billed, settledRow(pieces.requestId()).usage(), "the same output, however it was cut");
            assertEquals(billed, settledRow(repeating.requestId()).usage());
        }

        @Test
        void aUsageOfZeroForWhatWasCertainlySentAndDeliveredIsCountedInstead() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("one two three");
            call.finish("stop", new TokenUsage(0, 0));

            assertEquals(new TokenUsage(3, 3), settledRow(started.requestId()).usage(), "not free");
            Started honest = start("test/solo", 100);
            ScriptedModelProvider.Call other = alpha.lastCall();
            other.firstByte().delta("one two three");
            other.finish("stop", new TokenUsage(9, 4));
            assertEquals(new TokenUsage(9, 4), settledRow(honest.requestId()).usage(), "a plausible usage stands");
        }

        @Test
        void logProbabilitiesReachTheClientOnlyWhenItAskedForThem() {
            Started asked = start(withLogprobs(request("test/logprobs", PROMPT, 10)));
            ScriptedModelProvider.Call call = alpha.lastCall();
            call.firstByte().logprobs("[{\"token\":\"a\",\"logprob\":-0.5,\"top_logprobs\":[]}]").delta("a");
            call.finish("stop", new TokenUsage(3, 1));
            assertEquals(List.of("started:alpha", "logprobs", "delta", "complete"), asked.observer().events);

            Started plain = start(request("test/logprobs", PROMPT, 10));
            ScriptedModelProvider.Call other = alpha.lastCall();
            other.firstByte().logprobs("[{\"token\":\"a\",\"logprob\":-0.5,\"top_logprobs\":[]}]").delta("a");
            other.finish("stop", new TokenUsage(3, 1));
            assertEquals(List.of("started:alpha", "delta", "complete"), plain.observer().events,
                    "a provider sending them unasked does not put them in the answer");
        }

        @Test
        void logProbabilitiesOfAnAttemptThatFailedBeforeItsOutputAreDropped() {
            ModelCapabilities logprobs = new ModelCapabilities(false, false, true, false);
            catalog.add(model("test/logprobs-pair", 1000, 200, route("alpha", "a", 1_000_000, 3_000_000, logprobs),
                    route("beta", "b", 1_000_000, 3_000_000, logprobs)));
            Started started = start(withLogprobs(request("test/logprobs-pair", PROMPT, 10)));
            alpha.lastCall().firstByte().logprobs("[{\"token\":\"x\",\"logprob\":-1,\"top_logprobs\":[]}]");
            alpha.lastCall().fail(503, true, false, null);
            beta.lastCall().firstByte().delta("a");
            beta.lastCall().finish("stop", new TokenUsage(3, 1));
            assertEquals(List.of("started:beta", "delta", "complete"), started.observer().events);
        }

        @Test
        void eventsOfAnAbandonedAttemptAreIgnored() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call stale = alpha.onlyCall();
            timers.advance(settings.firstByteTimeout()); // alpha never answered: beta takes over
            assertTrue(stale.cancelled(), "the timed-out call is closed");
            ScriptedModelProvider.Call fresh = beta.onlyCall();

            stale.firstByte().delta("stale text");
            stale.finish("stop", new TokenUsage(3, 2));
            assertTrue(started.observer().events.isEmpty());
            assertEquals(0, blocking.pending(), "a stale finish settles nothing");

            fresh.firstByte().delta("fresh");
            fresh.finish("stop", new TokenUsage(3, 1));
            assertEquals("fresh", started.observer().text.toString());
            assertEquals("beta", settledRow(started.requestId()).provider());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Client cancellation (G13)

    @Nested
    class Cancellation {

        @Test
        void cancellingAfterSomeOutputBillsOnlyWhatWasDeliveredAndClosesTheUpstreamCall() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a b").delta(" c d");

            started.running().cancel();

            assertTrue(call.cancelled(), "the upstream call is cancelled");
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(3, 4), row.usage());
            assertEquals(micros(3 + 4 * 3), row.cost());
            assertTrue(row.cost().compareTo(row.held()) < 0, "never the full hold");
            assertEquals("cancelled", row.status());
            assertEquals(OPENING_BALANCE.minusFloorZero(micros(15)), available());
            assertEquals(List.of("started:alpha", "delta", "delta"), started.observer().events,
                    "the client that left is told nothing more");
            assertEquals(List.of("cancelled alpha 3+4 15"), started.observer().settlements,
                    "the settlement is told all the same (metrics count it as the ledger does)");

            // The provider may still deliver a few events before it notices: they change nothing.
            call.delta(" e f g");
            call.finish("stop", new TokenUsage(3, 7));
            assertEquals(0, blocking.pending());
            assertEquals(1, ledger.settleCalls());
            assertEquals(3, started.observer().events.size());
        }

        @Test
        void outputTheUpstreamSentBeforeItsConnectionClosedIsBilledButNotForwarded() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall().closingLater();
            call.firstByte().delta("a b");

            started.running().cancel();
            assertTrue(call.cancelled());
            assertEquals(0, blocking.pending(), "not settled while the connection is still closing");
            call.delta(" c d"); // read from the connection before it closed
            call.closeNow();
            call.delta(" e f"); // nothing follows the close in a real provider; ignored if it did

            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(3, 4), row.usage(), "what the upstream produced until it closed");
            assertEquals("cancelled", row.status());
            assertEquals(List.of("started:alpha", "delta"), started.observer().events, "the client is gone");
            assertEquals(1, ledger.settleCalls());
        }

        @Test
        void aCancelledCallThatNeverReportsItsCloseIsSettledAfterTheDrainLimit() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall().closingLater();
            call.firstByte().delta("a b");
            started.running().cancel();
            assertEquals(0, blocking.pending());

            timers.advance(Duration.ofMillis(CompletionRun.DRAIN_LIMIT_MILLIS));
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(new TokenUsage(3, 2), row.usage());
            call.closeNow();
            assertEquals(0, blocking.pending(), "settled once");
        }

        @Test
        void cancellingBeforeAnyOutputChargesNothing() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();

            started.running().cancel();

            assertTrue(call.cancelled());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(Usd.ZERO, row.cost());
            assertEquals("cancelled", row.status());
            assertEquals(TokenUsage.NONE, row.usage(), "the tokens recorded are the tokens charged for: none");
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void cancellingTwiceSettlesOnce() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("a");

            started.running().cancel();
            started.running().cancel();

            assertEquals(2, blocking.pending(), "the slots' release and one settlement are submitted");
            blocking.runAll();
            assertEquals(1, ledger.settleCalls());
            assertEquals(micros(3 + 3), ledger.ledgerRow(started.requestId()).orElseThrow().cost());
        }

        @Test
        void cancellingAfterCompletionIsANoOp() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("a");
            alpha.onlyCall().finish("stop", new TokenUsage(3, 1));
            started.running().cancel();

            assertFalse(alpha.onlyCall().cancelled());
            assertEquals(2, blocking.pending(), "the slots' release and one settlement");
            assertEquals("completed", settledRow(started.requestId()).status());
        }

        @Test
        void cancellingDuringARetryWaitStartsNoFurtherAttempt() {
            Started started = start("test/solo", 100);
            alpha.lastCall().fail(503, true, false, null);
            started.running().cancel();

            timers.advance(Duration.ofMinutes(1));
            assertEquals(1, alpha.calls().size());
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost());
            assertEquals(0, started.observer().terminalEvents());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Timers (G14)

    @Nested
    class Timers {

        @Test
        void theFirstByteTimeoutFiresOnARealSchedulerAndReleasesTheHold() throws InterruptedException {
            settings = new CompletionSettings(Duration.ofMillis(150), Duration.ofSeconds(10), Duration.ofMinutes(2), 0,
                    Duration.ofSeconds(1), Duration.ofSeconds(8));
            realTimers = Executors.newSingleThreadScheduledExecutor();
            String requestId = newRequestId();
            RecordingObserver observer = new RecordingObserver();
            long begin = System.nanoTime();
            service(realTimers).start(principal, request("test/solo", PROMPT, 100), requestId, ORIGIN,
                    observer);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (observer.failure == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);

            CompletionFailure failure = observer.failure;
            assertNotNull(failure, "the first-byte timeout did not fire");
            assertTrue(waitedMillis >= 150, "fired after " + waitedMillis + " ms, before the timeout");
            assertTrue(failure.status() >= 500, "a gateway-side timeout is a 5xx: " + failure.status());
            assertFalse(failure.afterOutput());
            assertTrue(alpha.onlyCall().cancelled(), "the silent upstream call is closed");
            InMemoryBillingLedger.LedgerRow row = settledRow(requestId);
            assertEquals(Usd.ZERO, row.cost());
            assertEquals(OPENING_BALANCE, available());
        }

        @Test
        void theFirstByteTimeoutFiresExactlyOnTime() {
            Started started = start("test/solo", 100);
            timers.advance(settings.firstByteTimeout().minusMillis(1));
            assertNull(started.observer().failure);
            assertFalse(alpha.lastCall().cancelled());

            timers.advance(Duration.ofMillis(1));
            assertTrue(alpha.calls().get(0).cancelled());
        }

        @Test
        void theIdleTimeoutFiresAfterSilenceMidStreamAndBillsWhatWasDelivered() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            timers.advance(Duration.ofSeconds(19));
            call.delta(" b"); // each chunk re-arms the idle timer
            timers.advance(Duration.ofSeconds(19));
            assertNull(started.observer().failure);

            timers.advance(Duration.ofSeconds(1));

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "20 s of silence after output");
            assertTrue(failure.afterOutput());
            assertTrue(call.cancelled());
            assertEquals(1, alpha.calls().size(), "no fallback after output");
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(micros(3 + 2 * 3), row.cost());
            assertEquals("failed", row.status());
        }

        /**
         * G14: a provider that sends a role chunk at once and its first token after a long think (a TTFT longer than
         * the idle timeout, shorter than the first-byte timeout) is waited for; the idle timeout counts only once
         * output has begun (an audit, 2026-11-29: it ran from the provider's headers and cut such answers off).
         */
        @Test
        void aFirstTokenAfterTheIdleTimeoutButWithinTheFirstByteTimeoutIsWaitedFor() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte(); // the role chunk
            timers.advance(settings.idleTimeout().plusSeconds(5)); // 25 s: past the 20 s idle, within the 30 s
            assertNull(started.observer().failure);
            call.delta("a");
            timers.advance(settings.idleTimeout().minusSeconds(1));
            call.finish("stop", new TokenUsage(3, 1));
            assertEquals("stop", started.observer().result.finishReason());
            assertTrue(beta.calls().isEmpty());
        }

        /** Pings and keep-alives before the first output do not stretch the wait past the first-byte timeout. */
        @Test
        void keepAlivesBeforeTheFirstOutputDoNotKeepAStuckProviderWaitedForPastTheFirstByteTimeout() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte(); // a role chunk or Anthropic's message_start
            for (int i = 0; i < 5; i++) { // then a ping every 5 s
                timers.advance(Duration.ofSeconds(5));
                call.firstByte();
            }
            timers.advance(settings.firstByteTimeout().minusSeconds(25).minusMillis(1));
            assertTrue(beta.calls().isEmpty(), "waited for until the first-byte timeout");
            timers.advance(Duration.ofMillis(1));
            // An audit: pings every second kept such a request waiting until its maximum duration (14 minutes by
            // default), its hold and slot taken, while the next route was never tried.
            assertTrue(call.cancelled(), "no output within the first-byte timeout: the stuck call is closed");
            assertEquals(1, beta.calls().size(), "nothing of alpha reached the client: the next route answers");
            beta.onlyCall().firstByte().delta("ok").finish("stop", new TokenUsage(3, 1));
            assertEquals(List.of("started:beta", "delta", "complete"), started.observer().events);
            assertEquals("completed", settledRow(started.requestId()).status());
        }

        /**
         * A client that reads slower than the answer comes holds the provider back (its transport stops reading);
         * the silence that follows is not the provider's, so the idle timeout does not end the request — the HTTP
         * adapter disconnects a client that stalls. Once it reads again the provider goes on and the idle timeout
         * counts again.
         */
        @Test
        void aClientHoldingTheAnswerBackPausesTheProviderWithoutTheIdleTimeoutBlamingIt() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            started.running().pause();
            assertTrue(call.paused());
            timers.advance(settings.idleTimeout().multipliedBy(3));
            assertNull(started.observer().failure, "held back by the client for three idle timeouts: still running");

            started.running().resume();
            assertFalse(call.paused());
            call.delta(" b");
            timers.advance(settings.idleTimeout());
            assertNotNull(started.observer().failure, "silent for an idle timeout after it went on: ended");
            assertEquals(micros(3 + 2 * 3), settledRow(started.requestId()).cost(), "billed what it delivered");
        }

        /**
         * A provider that sent its finishing chunk and then nothing more (no usage chunk, no [DONE], the connection held
         * open) has given a whole answer: it is finished with the gateway's count after a short wait and the call
         * closed — not failed at the idle timeout after the client had it all.
         */
        @Test
        void aWholeAnswerWhoseUsageNeverComesIsFinishedWithTheCountAfterAShortWait() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a").delta(" b").finishReason("stop");
            timers.advance(CompletionRun.USAGE_WAIT.minusMillis(1));
            assertNull(started.observer().result);
            timers.advance(Duration.ofMillis(1));

            assertNotNull(started.observer().result, "finished");
            assertNull(started.observer().failure);
            assertEquals("stop", started.observer().result.finishReason());
            assertTrue(call.cancelled(), "the held connection is closed");
            blocking.runAll();
            assertEquals("completed", settledRow(started.requestId()).status());
        }

        /** An audit: the usage came in the finishing chunk, then the connection was held open; it was dropped. */
        @Test
        void aWholeAnswerHeldOpenIsBilledWithTheUsageItsFinishingChunkCarried() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a").finishReason("stop", new TokenUsage(11, 5));
            timers.advance(CompletionRun.USAGE_WAIT);

            assertEquals(new TokenUsage(11, 5), started.observer().result.usage());
            blocking.runAll();
            assertEquals(new TokenUsage(11, 5), settledRow(started.requestId()).usage());
        }

        @Test
        void aUsageReportAfterTheFinishingChunkIsTheOneBilled() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a").finishReason("stop");
            timers.advance(Duration.ofSeconds(1));
            call.finish("stop", new TokenUsage(3, 7));
            assertEquals(new TokenUsage(3, 7), started.observer().result.usage());
            timers.advance(CompletionRun.USAGE_WAIT);
            assertFalse(call.cancelled(), "finished by the provider: nothing to close");
        }

        /**
         * An audit: a provider stuck part-way that kept sending pings held the request, its hold and its slot until
         * the maximum duration. The idle timeout counts from the last output; pings and keep-alives are no output.
         */
        @Test
        void keepAlivesAfterOutputDoNotHideThatTheProviderStopped() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            for (int i = 0; i < 3; i++) {
                timers.advance(Duration.ofSeconds(5));
                call.firstByte(); // bytes of a keep-alive comment or a ping: no output
            }
            assertNull(started.observer().failure);
            timers.advance(settings.idleTimeout().minusSeconds(15));
            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "an idle timeout after the last output, whatever pings came since");
            assertTrue(failure.message().contains("went silent"), failure.message());
            assertTrue(call.cancelled());
            assertTrue(beta.calls().isEmpty(), "output reached the client: no fallback");
            assertEquals(micros(3 + 3), settledRow(started.requestId()).cost(), "billed what it delivered");
        }

        @Test
        void outputKeepsTheAnswerGoingPastTheIdleTimeout() {
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            for (int i = 0; i < 5; i++) {
                timers.advance(settings.idleTimeout().minusSeconds(1));
                call.delta(" b");
            }
            assertNull(started.observer().failure, "a token just inside every idle timeout");
            call.finish("stop", new TokenUsage(3, 6));
            assertEquals("stop", started.observer().result.finishReason());
        }

        @Test
        void anUpstreamThatBeganItsBodyThenWentSilentBeforeAnyOutputIsReplacedAtTheFirstByteTimeout() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte(); // a role chunk, then nothing
            timers.advance(settings.firstByteTimeout().minusMillis(1));
            assertTrue(beta.calls().isEmpty(), "the wait for the first output is the first-byte timeout");
            timers.advance(Duration.ofMillis(1));

            assertTrue(call.cancelled());
            assertEquals(1, beta.calls().size(), "no output from alpha: the next route is tried");
            beta.onlyCall().fail(503, false, false, null);
            timers.advance(Duration.ofMinutes(10));
            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "every route failed");
            assertTrue(failure.status() >= 500, failure.toString());
            assertEquals("failed", settledRow(started.requestId()).status());
            assertEquals(Usd.ZERO, settledRow(started.requestId()).cost(), "no output, no charge");
            assertEquals(OPENING_BALANCE, available(), "the hold is released");
        }

        /** An audit: a silent provider was asked four times, a first-byte timeout each (8 minutes by default). */
        @Test
        void aProviderThatLetTheFirstByteTimeoutRunOutIsNotAskedAgainForTheRequest() {
            Started started = start("test/pair", 100);
            timers.advance(settings.firstByteTimeout());
            assertEquals(1, beta.calls().size(), "the next route is tried at once");
            beta.onlyCall().fail(503, true, false, null); // a quick failure: worth a retry pass
            timers.advance(Duration.ofSeconds(10));
            assertEquals(1, alpha.calls().size(), "alpha, which timed out, is not asked again");
            assertEquals(2, beta.calls().size(), "beta is retried");
            timers.advance(settings.firstByteTimeout());
            assertEquals(1, alpha.calls().size());
            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "both timed out: no route is left");
            assertEquals(502, failure.status());
            assertTrue(failure.message().contains("did not start answering"), failure.message());
            assertEquals("failed", settledRow(started.requestId()).status());
            assertEquals(OPENING_BALANCE, available(), "the hold is released");
        }

        @Test
        void anUpstreamThatWentSilentAfterOutputEndsTheRequestWithoutFallingBack() {
            Started started = start("test/pair", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a");
            timers.advance(settings.idleTimeout());

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "the idle timeout ends the request on time");
            assertTrue(failure.message().contains("went silent"), failure.message());
            assertTrue(call.cancelled());
            assertTrue(beta.calls().isEmpty(), "no fallback once output reached the client");
            timers.advance(Duration.ofMinutes(5));
            assertEquals(1, alpha.calls().size(), "and no retry either");
            assertEquals("failed", settledRow(started.requestId()).status());
        }

        @Test
        void aStreamIsStoppedBeforeItsHoldLeaseRunsOut() {
            settings = new CompletionSettings(Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofMinutes(2), 2,
                    Duration.ofSeconds(1), Duration.ofSeconds(8));
            Started started = start("test/solo", 100);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte();
            for (int i = 0; i < 5; i++) { // a token every 10 s keeps the idle timer happy for 50 s
                call.delta(" t");
                timers.advance(Duration.ofSeconds(10));
            }
            assertNull(started.observer().failure);

            timers.advance(Duration.ofSeconds(10)); // 60 s: lease (2 min) less a minute for settling

            CompletionFailure failure = started.observer().failure;
            assertNotNull(failure, "the maximum duration must end the request");
            assertEquals("timeout", failure.code());
            assertEquals("The request exceeded the maximum duration of 1 minute and was ended part-way; the output "
                    + "produced until then is billed", failure.message());
            assertTrue(failure.afterOutput());
            assertTrue(call.cancelled());
            InMemoryBillingLedger.LedgerRow row = settledRow(started.requestId());
            assertEquals(micros(3 + 5 * 3), row.cost());
            assertTrue(row.finishedAt().isBefore(row.admittedAt().plus(settings.lease())));
            // The settlement names its hold's lease: a store that cannot write it yet tries until shortly before.
            assertEquals(java.util.Optional.of(row.admittedAt().plus(settings.lease())),
                    ledger.holdLeaseNamed(started.requestId()));
        }

        @Test
        void aFirstByteTimeoutFallsBackToTheNextRoute() {
            Started started = start("test/pair", 100);
            timers.advance(settings.firstByteTimeout());

            assertTrue(alpha.onlyCall().cancelled());
            ScriptedModelProvider.Call fallback = beta.onlyCall();
            fallback.firstByte().delta("x");
            fallback.finish("stop", new TokenUsage(3, 1));
            assertEquals("beta", started.observer().result.provider());
            assertEquals(List.of("started:beta", "delta", "complete"), started.observer().events);
        }

        @Test
        void noTimerFiresAfterTheRequestEnded() {
            Started started = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("a");
            alpha.onlyCall().finish("stop", new TokenUsage(3, 1));

            timers.advance(Duration.ofMinutes(20));

            assertEquals(List.of("started:alpha", "delta", "complete"), started.observer().events);
            assertEquals(2, blocking.pending(), "the slots' release and one settlement");
            assertEquals(0, timers.pending(), "every timer was cancelled");
        }
    }

    @Test
    void aClientLeavingWhileTheProviderDeliversAChunkDoesNotDeadlock() throws Exception {
        // The provider holds its own lock while it delivers a chunk (which needs the run's lock); the client leaves
        // at that moment (cancelling needs the provider's lock). Found by bench/chaos.sh: cancelling while holding
        // the run's lock deadlocked the two threads.
        Started started = start("test/solo", 50);
        ScriptedModelProvider.Call call = alpha.onlyCall();
        call.firstByte().delta("hello");
        java.util.concurrent.CountDownLatch providerHoldsItsLock = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Thread> leaving = new java.util.concurrent.atomic.AtomicReference<>();
        Thread provider = new Thread(() -> {
            synchronized (call) {
                providerHoldsItsLock.countDown();
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
                while (System.nanoTime() < deadline && (leaving.get() == null
                        || leaving.get().getState() != Thread.State.BLOCKED)) {
                    Thread.onSpinWait();
                }
                call.delta(" world"); // needs the run's lock
            }
        });
        provider.start();
        assertTrue(providerHoldsItsLock.await(5, java.util.concurrent.TimeUnit.SECONDS));
        Thread client = new Thread(started.running()::cancel);
        leaving.set(client);
        client.start();

        client.join(10_000);
        provider.join(10_000);
        assertFalse(client.isAlive() || provider.isAlive(), "the client's cancel and the provider's chunk deadlocked");
        assertTrue(call.cancelled());
        blocking.runAll();
        assertEquals("cancelled", settledRow(started.requestId()).status());
    }

    @Nested
    class Shutdown {

        @Test
        void aCompletionStillRunningIsEndedAndBilledForWhatItDelivered() throws InterruptedException {
            ChatCompletionService service = service();
            String requestId = newRequestId();
            RecordingObserver observer = new RecordingObserver();
            service.start(principal, request("test/solo", PROMPT, 100), requestId, ORIGIN, observer);
            ScriptedModelProvider.Call call = alpha.onlyCall();
            call.firstByte().delta("a b").delta(" c d");

            InterruptedCompletions result = service.interruptRunning(Duration.ZERO);

            assertEquals(1, result.ended());
            assertEquals(1, result.unsettled(), "its settlement waits on the blocking executor here");
            assertTrue(call.cancelled(), "the upstream call is closed");
            assertEquals(503, observer.failure.status(), "a stream's client gets a terminal error event");
            assertEquals("service_unavailable", observer.failure.code());
            assertTrue(observer.failure.afterOutput());
            InMemoryBillingLedger.LedgerRow row = settledRow(requestId);
            assertEquals(new TokenUsage(3, 4), row.usage(), "the prompt and the four words delivered");
            assertEquals(micros(3 + 4 * 3), row.cost());
            assertEquals("failed", row.status());
            assertTrue(ledger.openHoldList().isEmpty(), "no hold left to expire unbilled");
            assertEquals(new InterruptedCompletions(0, 0), service.interruptRunning(Duration.ZERO),
                    "settled runs are forgotten");
        }

        @Test
        void aCompletionWhoseClientLeftIsSettledAtOnceWithoutWaitingForTheUpstream() throws InterruptedException {
            ChatCompletionService service = service();
            String requestId = newRequestId();
            RunningCompletion running = service.start(principal, request("test/solo", PROMPT, 100), requestId,
                    ORIGIN, new RecordingObserver());
            ScriptedModelProvider.Call call = alpha.onlyCall().closingLater();
            call.firstByte().delta("a b");
            running.cancel(); // draining: settled when the upstream closes or after the drain limit

            assertEquals(1, service.interruptRunning(Duration.ZERO).ended());

            InMemoryBillingLedger.LedgerRow row = settledRow(requestId);
            assertEquals(new TokenUsage(3, 2), row.usage());
            assertEquals("cancelled", row.status());
            timers.advance(Duration.ofMillis(CompletionRun.DRAIN_LIMIT_MILLIS));
            call.closeNow();
            assertEquals(0, blocking.pending(), "settled once");
        }

        @Test
        void withNothingRunningThereIsNothingToEnd() throws InterruptedException {
            Started done = start("test/solo", 100);
            alpha.onlyCall().firstByte().delta("a").finish("stop", new TokenUsage(3, 1));
            settledRow(done.requestId());
            assertEquals(new InterruptedCompletions(0, 0), service().interruptRunning(Duration.ofSeconds(5)));
        }
    }
}
