package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.CompletionFailure;
import dev.tollgate.application.port.in.completions.CompletionObserver;
import dev.tollgate.application.port.in.completions.CompletionResult;
import dev.tollgate.application.port.in.completions.RunningCompletion;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.billing.Pricing;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatRequest;
import dev.tollgate.domain.completion.JsonStrings;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One completion from hold to settlement. Tries the routes in order; a retryable failure before any output moves
 * to the next route, and after the last one waits and starts another pass (at most {@code maxRetries} passes).
 * Enforces the first-byte, idle and total-duration timers, and settles exactly once: the provider's usage (or
 * counted tokens) when it finishes, the prompt plus the tokens delivered when it fails mid-stream or the client
 * leaves, nothing when no provider answered. All state changes happen under this object's lock; settlement (a
 * database write) runs on the blocking executor, never on the caller's thread.
 */
final class CompletionRun implements RunningCompletion {

    /**
     * @param keyHash the paying key, {@code null} when the operator pays (anonymous playground)
     * @param settle  writes the request's one settlement (the prepaid ledger, or the playground's)
     * @param onEnd   gives back the request's traffic slots when its ending is decided, and again (a no-op) before
     *                the settlement
     * @param onEndInPlace whether {@code onEnd} waits on no I/O (counters in this process): it then runs on the
     *                thread that decides the ending instead of as a task of the blocking executor
     * @param ending  runs once when the charge is decided, before the client is told (the settlement follows)
     */
    /** @param contextLength the model's context window: the most prompt tokens a provider can have read */
    record Context(KeyHash keyHash, ChatRequest request, String requestId, List<ProviderRoute> routes,
            long promptTokens, int maxTokens, int contextLength, Usd hold, Instant admittedAt, ModelProviders providers,
            TokenCounter tokens, Consumer<BillingLedger.Settlement> settle, Clock clock,
            ScheduledExecutorService timers, Executor blocking, CompletionSettings settings, Runnable onEnd,
            boolean onEndInPlace, Runnable ending) {
    }

    private final Context ctx;
    private final CompletionObserver observer;
    private final long startNanos = System.nanoTime();
    private final Output delivered = new Output();
    private int routeIndex;
    private int pass;
    /** Calls made so far, over every route and pass (for the message when none answered). */
    private int attempts;
    private boolean allRateLimited = true;
    private boolean rateLimitSeen;
    /** The shortest Retry-After of the providers in this pass, and the longest of those worth waiting for. */
    private Duration soonestHint;
    private Duration latestHint;
    /** The longest Retry-After that took a provider out of this request (over LONGEST_HINTED_WAIT). */
    private Duration longestHint;
    /**
     * Routes not asked again in this request: their provider refused the gateway itself (401, 403, 404), answered
     * something unreadable, or asked for a longer wait than a client waits; null while none.
     */
    private Set<Integer> retiredRoutes;
    /** The current attempt's call; volatile for {@link #pause()}, which takes no lock. */
    private volatile ModelProvider.UpstreamCall call;
    /** The client holds the answer back ({@link #pause()}): the provider's silence is not the provider's. */
    private volatile boolean clientHolds;
    private ProviderRoute route;
    private Listener current;
    private ScheduledFuture<?> timer;
    private boolean idleArmed;
    /** This attempt's body began (a keep-alive comment, a ping, a role chunk) before any output. */
    private boolean bodyBegan;
    /** The finish reason the provider gave while its usage report may still follow, or null. */
    private String finishedAwaitingUsage;
    /** The usage the provider reported with its finished answer, if any: billed when no later report comes. */
    private TokenUsage usageSoFar;
    /** How long a finished answer waits for the provider's usage report before it is finished with the count. */
    static final Duration USAGE_WAIT = Duration.ofSeconds(5);
    private long idleExtensionNanos;
    private ScheduledFuture<?> deadline;
    private boolean started;
    private Long ttftMillis;
    private boolean done;
    /** The ledger was told the request ended ({@link #tellEnding}). */
    private boolean endingTold;
    /** Cancelled by the client, not settled yet: output still arriving is counted. */
    private boolean draining;
    /** The current attempt's provider count of the prompt, 0 while it told none ({@link #promptTokens()}). */
    private long reportedPromptTokens;

    /**
     * Longest wait for a cancelled upstream call to close before the request is settled without it: a safety net
     * for a provider that never reports its close, not the close's pace (the provider's own drain is bounded to
     * milliseconds). At 1 s, a loaded machine settled aborted streams before their slow close, and the output read
     * in between was never billed.
     */
    static final long DRAIN_LIMIT_MILLIS = 5000;

    CompletionRun(Context ctx, CompletionObserver observer) {
        this.ctx = ctx;
        this.observer = observer;
    }

    synchronized void begin() {
        deadline = ctx.timers().schedule(this::maxDurationReached, ctx.settings().maxDuration().toMillis(),
                TimeUnit.MILLISECONDS);
        attempt();
    }

    /** The first route from {@code from} on that is worth a try, or -1. */
    private int nextRoute(int from) {
        for (int i = from; i < ctx.routes().size(); i++) {
            if (retiredRoutes == null || !retiredRoutes.contains(i)) {
                return i;
            }
        }
        return -1;
    }

    private void attempt() {
        attempts++;
        route = ctx.routes().get(routeIndex);
        Listener listener = new Listener();
        current = listener;
        reportedPromptTokens = 0; // another provider's count of the prompt is not this one's
        idleArmed = false;
        bodyBegan = false;
        finishedAwaitingUsage = null;
        usageSoFar = null;
        armTimer(ctx.settings().firstByteTimeout(), listener, "did not start answering within "
                + readable(ctx.settings().firstByteTimeout()));
        ModelProvider provider = ctx.providers().byName(route.provider().value()).orElseThrow();
        try {
            call = provider.call(route, ctx.request(), ctx.maxTokens(), listener);
        } catch (RuntimeException e) {
            listener.onFailure(new ModelProvider.UpstreamFailure(502, true, false, null,
                    "provider " + route.provider() + " failed to start: " + e.getMessage()));
        }
    }

    /** The route is not tried again for this request. */
    private void retire(int index) {
        if (retiredRoutes == null) {
            retiredRoutes = new HashSet<>();
        }
        retiredRoutes.add(index);
    }

    private void armTimer(Duration after, Listener listener, String what) {
        armTimer(after.toNanos(), listener, what);
    }

    private void armTimer(long afterNanos, Listener listener, String what) {
        if (timer != null) {
            timer.cancel(false);
        }
        idleExtensionNanos = 0;
        timer = ctx.timers().schedule(() -> timedOut(listener, what), afterNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A chunk arrived: the idle deadline moves to now + the idle timeout. Rescheduling a timer for every chunk
     * would cost a timer-queue update (and often a thread wake-up) per token, so the armed timer stays and only
     * notes how much later it must fire; when it fires early it re-arms itself for exactly that much.
     */
    private void idleActivity(Listener listener) {
        if (!idleArmed) {
            idleArmed = true;
            armTimer(ctx.settings().idleTimeout(), listener, idleMessage());
            return;
        }
        idleExtensionNanos = ctx.settings().idleTimeout().toNanos() - timer.getDelay(TimeUnit.NANOSECONDS);
    }

    private String idleMessage() {
        return "went silent for more than " + readable(ctx.settings().idleTimeout());
    }

    /** A timeout for a message: whole seconds, or milliseconds when it is not a whole number of seconds. */
    static String readable(Duration timeout) {
        return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms";
    }

    private void timedOut(Listener listener, String what) {
        ModelProvider.UpstreamCall abandoned;
        synchronized (this) {
            if (done || listener != current) {
                return;
            }
            if (finishedAwaitingUsage != null) {
                // A whole answer whose usage report never came: finished with the usage it came with, else the
                // gateway's count, not failed; the call is closed below, outside the lock.
                abandoned = call;
                listener.onFinish(finishedAwaitingUsage, usageSoFar);
            } else {
                if (idleArmed && clientHolds) {
                    // Silent because the client holds the answer back: not the provider's silence. The client's own
                    // stall is the HTTP adapter's to end (it closes the connection, which cancels the run).
                    armTimer(ctx.settings().idleTimeout(), listener, what);
                    return;
                }
                if (idleArmed && idleExtensionNanos > 0) {
                    // Output came since it was armed: not idle yet.
                    armTimer(idleExtensionNanos, listener, what);
                    return;
                }
                abandoned = call;
                // No output within the first-byte timeout — whatever else the body held (a role chunk, Anthropic's
                // message_start, pings, keep-alive comments, which would otherwise keep a stuck provider waited for
                // until the maximum duration: an audit): nothing of this provider reached the client, so it is
                // retried or the next route is tried. A provider that went silent after output ends the request.
                String silence = !idleArmed && bodyBegan ? "began its answer but sent no output within "
                        + readable(ctx.settings().firstByteTimeout()) : what;
                if (!idleArmed) {
                    // A provider that let the first-byte timeout run out is not asked again for this request: each
                    // retry would keep the client, its hold and its slot waiting that long again (four attempts
                    // were eight minutes at the default 120 s: an audit). Other routes are still tried.
                    retire(routeIndex);
                }
                listener.failed(new ModelProvider.UpstreamFailure(504, !idleArmed, false, null,
                        "provider " + route.provider() + " " + silence));
            }
        }
        cancel(abandoned);
    }

    private void maxDurationReached() {
        boolean produced;
        synchronized (this) {
            produced = !delivered.isEmpty();
        }
        // Billed what the upstream produced (G13), as the shutdown's 503 says: a non-streaming client gets none of it.
        String exceeded = "The request exceeded the maximum duration of " + spoken(ctx.settings().maxDuration());
        endNow(504, "timeout", produced ? exceeded + " and was ended part-way; the output produced until then is "
                + "billed" : exceeded, 0);
    }

    /** A duration as a message says it: "1 minute", "14 minutes", else as {@link #readable}. */
    static String spoken(Duration duration) {
        long seconds = duration.toSeconds();
        if (duration.toMillis() % 60_000 == 0 && seconds > 0) {
            long minutes = seconds / 60;
            return minutes + (minutes == 1 ? " minute" : " minutes");
        }
        return readable(duration);
    }

    /**
     * The process is stopping and this request outlived the grace period: it ends now as failed (a stream's client
     * gets the terminal error event) and is settled with the prompt and what the upstream had sent — a request
     * whose client already left is settled at once with what had arrived, without waiting for the upstream to
     * close.
     */
    void interrupt() {
        settleDrained();
        boolean produced;
        synchronized (this) {
            produced = !delivered.isEmpty();
        }
        // A request ended part-way is billed what the upstream produced (G13): a client told only to retry would
        // not know it pays for the first try too.
        endNow(503, "service_unavailable", produced
                ? "The gateway is shutting down and ended this request part-way; the output produced until then is "
                        + "billed; retry it"
                : "The gateway is shutting down and ended this request; retry it", 1);
    }

    private void endNow(int status, String code, String message, long retryAfterSeconds) {
        ModelProvider.UpstreamCall abandoned;
        synchronized (this) {
            if (done) {
                return;
            }
            abandoned = call;
            finishWithFailure(new CompletionFailure(status, "api_error", code, message, retryAfterSeconds,
                    !delivered.isEmpty()), partialUsage(), "failed");
        }
        cancel(abandoned);
    }

    /**
     * Cancels an upstream call. Never called with this run's lock held: a provider delivers its events holding its
     * own lock (and the HTTP client's internal ones) and then takes this run's lock, so cancelling it while holding
     * ours would deadlock the two threads.
     */
    private static void cancel(ModelProvider.UpstreamCall abandoned) {
        if (abandoned != null) {
            abandoned.cancel();
        }
    }

    /**
     * The client left: the upstream call is closed, and the request is settled once it is — with what the upstream
     * had sent until then, delivered to the client or not (G13: billed what the upstream produced before it saw the
     * close). A provider that never reports the close is settled after {@value #DRAIN_LIMIT_MILLIS} ms all the same.
     */
    @Override
    public void cancel() {
        ModelProvider.UpstreamCall abandoned;
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            draining = true;
            cancelTimers();
            abandoned = call;
        }
        if (abandoned == null) {
            settleDrained();
            return;
        }
        ScheduledFuture<?> limit = ctx.timers().schedule(this::settleDrained, DRAIN_LIMIT_MILLIS,
                TimeUnit.MILLISECONDS);
        abandoned.cancel(() -> {
            limit.cancel(false);
            settleDrained();
        });
    }

    /**
     * The client reads slower than the answer arrives: the provider's call stops reading until {@link #resume()}.
     * Takes no lock (see the port); a pause that meets a later attempt's call is harmless — attempts end before
     * the first output, and a client only holds back output.
     */
    @Override
    public void pause() {
        clientHolds = true;
        ModelProvider.UpstreamCall current = call;
        if (current != null) {
            current.pause();
        }
    }

    @Override
    public void resume() {
        clientHolds = false;
        ModelProvider.UpstreamCall current = call;
        if (current != null) {
            current.resume();
        }
    }

    /** Settles a cancelled request with what was received until now; only the first call counts. */
    private synchronized void settleDrained() {
        if (draining) {
            draining = false;
            settle(partialUsage(), "cancelled");
        }
    }

    /** Output that arrived after the client left, before the upstream connection closed: billed, not forwarded. */
    private synchronized void drained(Listener listener, Consumer<Output> output) {
        if (draining && listener == current) {
            output.accept(delivered);
        }
    }

    /**
     * What the upstream produced for this request: whether anything, and the text its output tokens are counted in
     * — the content, refusal and reasoning text, and of tool calls their names and arguments (not the JSON around them, which the provider does
     * not bill and which would count many times over when the arguments come in many small pieces).
     */
    private static final class Output {
        private static final Set<String> NAME = Set.of("name");
        private static final Set<String> ARGUMENTS = Set.of("arguments");
        private final StringBuilder text = new StringBuilder();
        /** Refusal and reasoning text, each counted on its own (a word must not run on into the content's). */
        private final Map<AnswerChannel, StringBuilder> channels = new EnumMap<>(AnswerChannel.class);
        /** The tool name counted last: a provider that repeats it in every piece is not billed for it again. */
        private String lastName = "";
        private boolean any;

        void text(String content) {
            text.append(content);
            any |= !content.isEmpty();
        }

        void text(AnswerChannel channel, String part) {
            channels.computeIfAbsent(channel, c -> new StringBuilder()).append(part);
            any |= !part.isEmpty();
        }

        void toolCalls(String toolCallsJson) {
            try {
                String name = JsonStrings.memberValues(toolCallsJson, NAME);
                if (!name.isEmpty() && !name.equals(lastName)) {
                    text.append(name);
                    lastName = name;
                }
                text.append(JsonStrings.memberValues(toolCallsJson, ARGUMENTS));
            } catch (IllegalArgumentException unreadable) {
                text.append(toolCallsJson); // a provider adapter always hands over JSON; counted whole if not
            }
            any = true;
        }

        boolean isEmpty() {
            return !any;
        }

        boolean isBlank() {
            return text.toString().isBlank() && channels.values().stream().allMatch(c -> c.toString().isBlank());
        }

        /** The output tokens in what was delivered. */
        long tokens(TokenCounter counter) {
            long tokens = text.isEmpty() ? 0 : counter.countText(text.toString());
            for (StringBuilder channel : channels.values()) {
                tokens = Math.addExact(tokens, counter.countText(channel.toString()));
            }
            return tokens;
        }
    }

    /**
     * A provider's usage with its output capped at the request's allowance ({@code max_tokens}, which the provider
     * was sent) and its prompt at the model's context window: more cannot have been produced or read, and the usage
     * the client sees is the one it is billed for.
     */
    private TokenUsage withinAllowance(TokenUsage reported) {
        long prompt = Math.min(reported.promptTokens(), mostPromptTokens());
        long completion = Math.min(reported.completionTokens(), ctx.maxTokens());
        return prompt == reported.promptTokens() && completion == reported.completionTokens() ? reported
                : new TokenUsage(prompt, completion);
    }

    /**
     * A provider's usage, except where it says zero of something it certainly had: the prompt sent, output the
     * client received. Those zeros are counted instead, so an upstream reporting {@code {0, 0}} does not make its
     * answers free.
     */
    private TokenUsage plausible(TokenUsage reported) {
        long prompt = reported.promptTokens() == 0 ? promptTokens() : reported.promptTokens();
        long completion = reported.completionTokens();
        if (completion == 0 && !delivered.isBlank()) {
            completion = partialUsage().completionTokens();
        }
        return prompt == reported.promptTokens() && completion == reported.completionTokens() ? reported
                : new TokenUsage(prompt, completion);
    }

    /**
     * The prompt and the output tokens counted in what was delivered — at most the request's allowance, which the
     * provider was sent: more cannot have been produced, though another tokenizer may count more in the same text.
     */
    private TokenUsage partialUsage() {
        return new TokenUsage(promptTokens(), Math.min(delivered.tokens(ctx.tokens()), ctx.maxTokens()));
    }

    /**
     * The prompt's tokens for a request that did not finish: the provider's own count when it told one before the
     * end ({@link ModelProvider.UpstreamListener#onPromptCounted}; Anthropic's, cache included — an audit saw 14
     * estimated tokens billed for a prompt of 3,010), at most what the model's context holds; else the estimate.
     */
    private long promptTokens() {
        return reportedPromptTokens > 0 ? Math.min(reportedPromptTokens, mostPromptTokens()) : ctx.promptTokens();
    }

    /** The most prompt tokens a provider can have read: the model's context window (or the estimate, if larger). */
    private long mostPromptTokens() {
        return Math.max(ctx.contextLength(), ctx.promptTokens());
    }

    private void cancelTimers() {
        if (timer != null) {
            timer.cancel(false);
        }
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    /**
     * Settles the request: the charge is decided here (the caller may tell the client), the database write runs on
     * the blocking executor. Callers tell their observer first and settle after, so the answer does not wait for
     * the hand-off.
     */
    private void settle(TokenUsage usage, String status) {
        settle(usage, status, charge(usage, status));
    }

    private void settle(TokenUsage usage, String status, Usd cost) {
        Instant now = ctx.clock().instant();
        long latency = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
        // The tokens recorded are the tokens charged for: a request that ended before any output (cancelled while
        // waiting, failed) charges nothing and records none, in the ledger and in the metrics alike.
        boolean billed = !delivered.isEmpty() || "completed".equals(status);
        TokenUsage charged = billed ? usage : TokenUsage.NONE;
        BillingLedger.Settlement settlement = new BillingLedger.Settlement(ctx.requestId(),
                ctx.keyHash(), ctx.request().model().value(), route.provider().value(), charged, cost,
                status, now, latency, ttftMillis, ctx.request().stream(), ctx.admittedAt().plus(ctx.settings().lease()));
        tellEnding();
        // Whatever an observer throws, the slots go back and the hold is settled: done is set, so nothing else would.
        try {
            observer.onSettled(route.provider().value(), status, charged, cost);
        } finally {
            Runnable end = () -> {
                try {
                    ctx.onEnd().run(); // given back at the ending already, unless that failed
                } finally {
                    ctx.settle().accept(settlement);
                }
            };
            try {
                ctx.blocking().execute(end);
            } catch (RejectedExecutionException shuttingDown) {
                // The process is stopping and the executor takes nothing more: settle here rather than not at all
                // (a request whose tokens reached its client must be charged for them).
                end.run();
            }
        }
    }

    private Usd charge(TokenUsage usage, String status) {
        return (delivered.isEmpty() && !"completed".equals(status)) ? Usd.ZERO : priced(usage);
    }

    /** The charge for {@code usage}, capped at the hold; a usage too large to price is charged the hold. */
    private Usd priced(TokenUsage usage) {
        try {
            return Pricing.charge(Pricing.cost(route, usage), ctx.hold());
        } catch (IllegalArgumentException | ArithmeticException e) {
            return ctx.hold();
        }
    }

    /**
     * Tells the ledger, once, that the request has ended and its settlement follows: before the observer writes
     * the last of the answer, so that a client that sends its next request the moment it has the answer finds the
     * settlement on its way (told after the answer was written, it sometimes was not yet, on a loaded machine, and
     * the next request was refused by the key's limit with room left — an audit saw 3 of 150).
     */
    private void tellEnding() {
        if (!endingTold) {
            endingTold = true;
            ctx.ending().run();
            giveSlotsBack();
        }
    }

    /**
     * The request's concurrency slots (§8.1) go back as soon as its ending is decided, before the last of the
     * answer is written: a client that keeps exactly its cap in flight sends the next request the moment it has
     * an answer, and with the slots given back after the write, 2 % of such requests (non-streaming, 4 workers at a
     * cap of 4, measured 2026-11-29) were refused for a slot their finished request still held. Counters in this
     * process give them back right here (microseconds, no I/O); a Redis release is a round trip, so it runs on the
     * blocking executor, queued ahead of the settlement, and a client at exactly its cap can still, rarely, be
     * refused for it. The settlement gives the slots back too ({@link #settle}), which counts only once.
     */
    private void giveSlotsBack() {
        if (ctx.onEndInPlace()) {
            ctx.onEnd().run();
            return;
        }
        try {
            ctx.blocking().execute(ctx.onEnd());
        } catch (RejectedExecutionException shuttingDown) {
            ctx.onEnd().run();
        }
    }

    private void finishWithFailure(CompletionFailure failure, TokenUsage usage, String status) {
        done = true;
        cancelTimers();
        tellEnding();
        try {
            observer.onFailure(failure);
        } finally {
            settle(usage, status);
        }
    }

    /** Events of one attempt; stale events of an abandoned attempt are ignored. */
    private final class Listener implements ModelProvider.UpstreamListener {

        /** Log probabilities that came before the output they belong to; an abandoned attempt's go with it. */
        private List<String> pendingLogprobs;

        /**
         * Bytes of the provider's body that hold no output (a keep-alive comment, a ping, a role chunk). They change
         * no timer: before output the first-byte timeout counts to the first output, so a provider that sends a role
         * chunk at once and its first token after a minute of thought (G14: a TTFT of 60 s) is not cut off by the
         * idle timeout, and one that sends only pings is replaced when the first-byte timeout runs out; after output
         * the idle timeout counts from the last output, so one stuck part-way that keeps pinging is ended then, not
         * at the maximum duration (an audit, 2026-11-29, for both). Its status line alone is no body either.
         */
        @Override
        public void onFirstByte() {
            synchronized (CompletionRun.this) {
                if (done || this != current) {
                    return;
                }
                if (!started) {
                    bodyBegan = true;
                }
            }
        }

        /**
         * Output arrived (text, a tool call, or the end of the answer): the provider is answering for real, so the
         * client's stream starts now — not with the provider's status line, after which it may still fail before
         * any output, when another provider is tried and the client must get a real status if none answers
         * (sdk-contract.md: errors before the first byte keep their status). Called with the run's lock held.
         */
        private void output() {
            idleActivity(this);
            if (!started) {
                started = true;
                ttftMillis = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
                observer.onStarted(route.provider().value());
            }
            if (pendingLogprobs != null) {
                pendingLogprobs.forEach(observer::onLogprobs);
                pendingLogprobs = null;
            }
        }

        @Override
        public void onDelta(String text) {
            synchronized (CompletionRun.this) {
                if (done || this != current || text.isEmpty()) {
                    drained(this, output -> output.text(text));
                    return;
                }
                output();
                delivered.text(text);
                observer.onDelta(text);
            }
        }

        @Override
        public void onText(AnswerChannel channel, String text) {
            synchronized (CompletionRun.this) {
                if (done || this != current || text.isEmpty()) {
                    drained(this, output -> output.text(channel, text));
                    return;
                }
                // Refusal and reasoning text is output too: billed like the content, and it ends any fallback.
                output();
                delivered.text(channel, text);
                observer.onText(channel, text);
            }
        }

        @Override
        public void onToolCallDelta(String toolCallsJson) {
            synchronized (CompletionRun.this) {
                if (done || this != current) {
                    drained(this, output -> output.toolCalls(toolCallsJson));
                    return;
                }
                output();
                // Tool calls are output too: they count for partial billing and end any fallback.
                delivered.toolCalls(toolCallsJson);
                observer.onToolCallDelta(toolCallsJson);
            }
        }

        @Override
        public void onLogprobs(String contentJson) {
            synchronized (CompletionRun.this) {
                if (!done && this == current && ctx.request().logprobs()) {
                    if (pendingLogprobs == null) {
                        pendingLogprobs = new ArrayList<>(2);
                    }
                    pendingLogprobs.add(contentJson); // passed on with the output that follows
                }
            }
        }

        @Override
        public void onPromptCounted(long promptTokens) {
            synchronized (CompletionRun.this) {
                if (this == current) {
                    reportedPromptTokens = promptTokens;
                }
            }
        }

        @Override
        public void onFinish(String finishReason, TokenUsage reportedUsage) {
            synchronized (CompletionRun.this) {
                if (done || this != current) {
                    return;
                }
                output();
                done = true;
                cancelTimers();
                TokenUsage usage = reportedUsage != null ? withinAllowance(plausible(reportedUsage)) : partialUsage();
                Usd charged = charge(usage, "completed");
                tellEnding();
                try {
                    observer.onComplete(new CompletionResult(finishReason, usage, charged, route.provider().value()));
                } finally {
                    settle(usage, "completed", charged);
                }
            }
        }

        @Override
        public void onFinishReason(String finishReason, TokenUsage usageSoFar) {
            synchronized (CompletionRun.this) {
                if (done || this != current) {
                    return;
                }
                finishedAwaitingUsage = finishReason;
                CompletionRun.this.usageSoFar = usageSoFar;
                Duration wait = ctx.settings().idleTimeout().compareTo(USAGE_WAIT) < 0 ? ctx.settings().idleTimeout()
                        : USAGE_WAIT;
                armTimer(wait, this, idleMessage());
            }
        }

        @Override
        public void onFailure(ModelProvider.UpstreamFailure failure) {
            synchronized (CompletionRun.this) {
                if (done || this != current) {
                    return;
                }
                failed(failure);
            }
        }

        /** Called with the run's lock held. */
        void failed(ModelProvider.UpstreamFailure failure) {
            if (failure.invalidParam() == null) {
                observer.onAttemptFailed(route.provider().value(), failure.status());
            }
            if (delivered.isEmpty() && failure.invalidParam() != null) {
                // Nothing went upstream: the client's request is at fault, and nothing is charged.
                finishWithFailure(new CompletionFailure(400, "invalid_request_error", "invalid_request",
                        failure.message(), 0, false, failure.invalidParam()), TokenUsage.NONE, "failed");
                return;
            }
            boolean providerFault = failure.providerFault();
            if (!delivered.isEmpty() || !failure.retryable() && !providerFault) {
                // After output a provider's 4xx is still the provider failing us, not the client's request. The
                // status reaches a non-streaming client; a stream that began has committed its 200 already.
                int status = delivered.isEmpty() && failure.status() >= 400 && failure.status() < 500 ? 400 : 502;
                // Output began: the prompt and what the provider produced are billed (a non-streaming client is
                // told so, and its SDK told not to retry on its own: each retry would be billed again).
                finishWithFailure(new CompletionFailure(status, status == 400 ? "invalid_request_error" : "api_error",
                        delivered.isEmpty() && status == 400 ? "upstream_rejected" : "upstream_error",
                        "The model provider failed: " + failure.message() + (delivered.isEmpty() ? ""
                                : " (after it began answering: the prompt and the output it produced are billed)"),
                        0, !delivered.isEmpty()),
                        delivered.isEmpty() ? TokenUsage.NONE : partialUsage(), "failed");
                return;
            }
            Duration hint = failure.retryAfter();
            boolean waitTooLong = !providerFault && hint != null
                    && hint.compareTo(CompletionSettings.LONGEST_HINTED_WAIT) > 0;
            if (providerFault || waitTooLong) {
                // The gateway's credentials or model name for this provider, a provider that answers what its API
                // does not, or one that will not take requests for longer than a client waits: other providers
                // are tried, this one not again.
                retire(routeIndex);
            }
            if (!providerFault) {
                allRateLimited &= failure.rateLimited();
                rateLimitSeen |= failure.rateLimited();
                if (hint != null) {
                    soonestHint = soonestHint == null || hint.compareTo(soonestHint) < 0 ? hint : soonestHint;
                    if (waitTooLong) {
                        longestHint = longestHint == null || hint.compareTo(longestHint) > 0 ? hint : longestHint;
                    } else {
                        latestHint = latestHint == null || hint.compareTo(latestHint) > 0 ? hint : latestHint;
                    }
                }
            }
            current = null;
            int next = nextRoute(routeIndex + 1);
            if (next >= 0) {
                routeIndex = next;
                attempt();
                return;
            }
            boolean noneLeft = nextRoute(0) < 0;
            if (allRateLimited && rateLimitSeen) {
                // Never tell a client to come back early: the soonest any provider said it would take requests
                // again, exactly (sdk-contract.md: accurate). A wait too long to sleep through inside a call is
                // marked so by the HTTP adapter (x-should-retry: false), as the traffic limits' long waits are.
                long retryAfter = soonestHint == null ? 1 : Math.max(1, (soonestHint.toMillis() + 999) / 1000);
                finishWithFailure(new CompletionFailure(429, "rate_limit_error", "transfer_agent_capacity_reached",
                        "Every provider of this model is at capacity; retry after " + retryAfter + " s",
                        retryAfter, false), TokenUsage.NONE, "failed");
                return;
            }
            if (noneLeft || pass >= ctx.settings().maxRetries()) {
                String asked = longestHint == null ? ""
                        : " (a provider asked to wait " + longestHint.toSeconds() + " s before trying again)";
                finishWithFailure(new CompletionFailure(502, "api_error", "upstream_error",
                        "No provider of this model could answer (" + attempts + (attempts == 1 ? " attempt" : " attempts")
                        + "; the last: " + failure.message() + ")" + asked, 0, false),
                        TokenUsage.NONE, "failed");
                return;
            }
            // Each provider of the pass is waited for as long as it asked (the longest hint of the pass).
            Duration wait = ctx.settings().backoff(pass + 1, latestHint);
            pass++;
            routeIndex = nextRoute(0);
            allRateLimited = true;
            rateLimitSeen = false;
            soonestHint = null;
            latestHint = null;
            ctx.timers().schedule(() -> {
                synchronized (CompletionRun.this) {
                    if (!done) {
                        attempt();
                    }
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
