package dev.tollgate.adapter.out.upstream.simulator;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.ChatRequest;
import java.time.Duration;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Upstream adapter: the built-in simulator, a real {@link ModelProvider} that needs no network. It answers with
 * deterministic text derived from the prompt, after a configurable time to first token, at a configurable rate,
 * and can inject failures, so the gateway works offline, in tests and in benchmarks.
 *
 * <p>Settings (catalog {@code providers.<name>}): {@code time-to-first-token-ms} (default 20),
 * {@code tokens-per-second} (0 = all at once; default 200), {@code output-tokens} (default 24; capped by
 * max_tokens), {@code report-usage} (default true), {@code fail-every} (every n-th call fails; 0 = never),
 * {@code fail-mode} ({@code before-first-byte} or {@code mid-stream}), {@code fail-status} (default 503). Stop
 * sequences end the answer before the sequence, with {@code finish_reason: "stop"}, as providers do.
 *
 * <p>A request whose {@code response_format} asks for JSON is answered with JSON, as a model would answer it: an
 * object for {@code json_object}, an instance of the schema for {@code json_schema} ({@link JsonAnswer}). It streams
 * in token-sized pieces at the same pace, each one token, and max_tokens cuts it short with
 * {@code finish_reason: "length"} as it cuts a real model's JSON.
 *
 * <p>A request that offers tools is answered with a call to one of them, as a model would answer it, unless
 * {@code tool_choice} is {@code "none"} or the last message is a tool's result ({@link ToolCallAnswer}): the call
 * streams as OpenAI streams it (a first piece with its id and name, then its arguments in pieces, each one token at
 * the same pace) and ends with {@code finish_reason: "tool_calls"}; max_tokens cuts the arguments short with
 * {@code "length"}, and stop sequences, which apply to text, do not end it.
 */
public final class SimulatorModelProvider implements ModelProvider {

    /**
     * The simulator's vocabulary: each word is one o200k token with or without a leading space, so the tokens the
     * gateway counts in what it delivered (a cancelled stream's bill) are the tokens the simulator says it emitted.
     */
    static final String[] WORDS = {"hello", "gateway", "token", "stream", "model", "answer", "credit",
            "balance", "route", "reply", "meter", "request", "limit", "window", "quota", "provider"};

    private final String name;
    private final Duration timeToFirstToken;
    private final long tokensPerSecond;
    private final int outputTokens;
    private final boolean reportUsage;
    private final long failEvery;
    private final boolean failMidStream;
    private final int failStatus;
    private final TokenCounter tokens;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong calls = new AtomicLong();

    public SimulatorModelProvider(CatalogFile.ProviderSettings settings, TokenCounter tokens,
            ScheduledExecutorService scheduler) {
        this.name = settings.name();
        this.timeToFirstToken = Duration.ofMillis(settings.number("time-to-first-token-ms", 20, 0));
        this.tokensPerSecond = settings.number("tokens-per-second", 200, 0);
        this.outputTokens = (int) settings.number("output-tokens", 24, 0);
        this.reportUsage = settings.bool("report-usage", true);
        this.failEvery = settings.number("fail-every", 0, 0);
        this.failMidStream = "mid-stream".equals(settings.choice("fail-mode", "before-first-byte",
                "mid-stream"));
        long status = settings.number("fail-status", 503);
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("provider " + name + ": fail-status must be an HTTP error status "
                    + "(400-599), got " + status);
        }
        this.failStatus = (int) status;
        this.tokens = tokens;
        this.scheduler = scheduler;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
        boolean fail = failEvery > 0 && calls.incrementAndGet() % failEvery == 0;
        int seed = request.promptText().hashCode();
        ToolCallAnswer toolCall = ToolCallAnswer.of(request, seed);
        List<String> answer = toolCall != null ? toolCall.deltas() : answer(request, seed);
        Emission emission = new Emission(request, seed, answer, toolCall != null, Math.min(answer.size(), maxTokens),
                fail, listener);
        emission.next = scheduler.schedule(emission::first, timeToFirstToken.toMillis(), TimeUnit.MILLISECONDS);
        return emission;
    }

    /**
     * The whole answer a model would give, one token per element: {@code output-tokens} words derived from the
     * prompt, or the JSON the request's response_format asks for, cut into pieces.
     */
    private List<String> answer(ChatRequest request, int seed) {
        List<String> words = new AbstractList<>() {
            @Override
            public String get(int n) {
                // with its leading space; computed when emitted, so a long output-tokens costs no memory
                Objects.checkIndex(n, outputTokens);
                return (n == 0 ? "" : " ") + WORDS[Math.floorMod(seed + n * 31, WORDS.length)];
            }

            @Override
            public int size() {
                return outputTokens;
            }
        };
        if (request.responseFormatJson() == null) {
            return words;
        }
        String json = JsonAnswer.answer(request.responseFormatJson(), seed, String.join("", words));
        return json == null ? words : JsonAnswer.pieces(json);
    }

    /** One simulated answer, emitted token by token. */
    private final class Emission implements UpstreamCall {
        private final ChatRequest request;
        private final int seed;
        /** Text pieces, or the {@code delta.tool_calls} arrays of a tool call. */
        private final List<String> answer;
        private final boolean toolCall;
        /** How much of the answer may be emitted: all of it, or what max_tokens allows. */
        private final int length;
        private final boolean fail;
        private final UpstreamListener listener;
        private final StringBuilder text = new StringBuilder();
        /** Where the answer ends because of a stop sequence (a character index), or -1. */
        private final int stopAt;
        private int emitted;
        private boolean cancelled;
        private ScheduledFuture<?> next;
        /** The client reads slowly: emission waits for {@link #resume()} (written without the lock, see the port). */
        private volatile boolean paused;
        /** Emission stopped because it was paused, and must be started again on resume. */
        private boolean held;

        Emission(ChatRequest request, int seed, List<String> answer, boolean toolCall, int length, boolean fail,
                UpstreamListener listener) {
            this.request = request;
            this.seed = seed;
            this.answer = answer;
            this.toolCall = toolCall;
            this.length = length;
            this.fail = fail;
            this.listener = listener;
            this.stopAt = toolCall ? -1 : firstStop();
        }

        private synchronized void first() {
            if (cancelled) {
                return;
            }
            if (fail && !failMidStream) {
                listener.onFailure(new UpstreamFailure(failStatus, failStatus == 429 || failStatus >= 500,
                        failStatus == 429, null, name + " answered HTTP " + failStatus + " (a simulated failure)"));
                return;
            }
            listener.onFirstByte();
            step();
        }

        private synchronized void step() {
            // A loop, not a call per token: with tokens-per-second 0 a long answer would nest a frame per token
            while (!cancelled) {
                if (paused) {
                    held = true;
                    return;
                }
                if (fail && failMidStream && emitted >= Math.max(1, length / 2)) {
                    listener.onFailure(new UpstreamFailure(failStatus, false, false, null,
                            name + " reset the connection mid-stream (a simulated failure)"));
                    return;
                }
                if (emitted >= length) {
                    // Each piece (a word, a bit of JSON, a tool call's name) is one token of the simulator's own
                    // vocabulary, so usage never exceeds max_tokens; the prompt is counted with the gateway's
                    // tokenizer.
                    TokenUsage usage = reportUsage ? new TokenUsage(tokens.countPrompt(request), emitted) : null;
                    listener.onFinish(length < answer.size() ? "length" : toolCall ? "tool_calls" : "stop", usage);
                    return;
                }
                String piece = answer.get(emitted);
                if (stopAt >= 0 && text.length() + piece.length() > stopAt) {
                    // As a provider does: the answer ends before the stop sequence, which is not part of it.
                    String before = piece.substring(0, stopAt - text.length());
                    if (!before.isEmpty()) {
                        text(before);
                    }
                    TokenUsage usage = reportUsage ? new TokenUsage(tokens.countPrompt(request), emitted) : null;
                    listener.onFinish("stop", usage);
                    return;
                }
                if (toolCall) {
                    emitted++;
                    listener.onToolCallDelta(piece);
                } else {
                    text(piece);
                }
                if (tokensPerSecond > 0) {
                    next = scheduler.schedule(this::step, 1_000_000L / tokensPerSecond, TimeUnit.MICROSECONDS);
                    return;
                }
            }
        }

        /** Emits one token of text, after its log probabilities when the request asked for them. */
        private void text(String token) {
            if (request.logprobs()) {
                listener.onLogprobs(TokenLogprobs.of(token, seed, emitted,
                        request.topLogprobs() == null ? 0 : request.topLogprobs()));
            }
            emitted++;
            text.append(token);
            listener.onDelta(token);
        }

        /** Where the whole answer first reaches one of the request's stop sequences, or -1. */
        private int firstStop() {
            if (request.stop().isEmpty()) {
                return -1;
            }
            StringBuilder whole = new StringBuilder();
            for (int n = 0; n < length; n++) {
                whole.append(answer.get(n));
            }
            int earliest = -1;
            for (String stop : request.stop()) {
                int found = stop.isEmpty() ? -1 : whole.indexOf(stop);
                if (found >= 0 && (earliest < 0 || found < earliest)) {
                    earliest = found;
                }
            }
            return earliest;
        }

        @Override
        public synchronized void cancel() {
            cancelled = true;
            if (next != null) {
                next.cancel(false);
            }
        }

        @Override
        public void pause() {
            paused = true;
        }

        /** Emission goes on, on the simulator's scheduler (never on the caller's thread, which may hold locks). */
        @Override
        public void resume() {
            paused = false;
            try {
                scheduler.execute(this::unhold);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // the process is stopping: the call ends with it
            }
        }

        private synchronized void unhold() {
            if (held && !cancelled && !paused) {
                held = false;
                step();
            }
        }
    }
}
