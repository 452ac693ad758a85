package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Test fixture: a {@link ModelProvider} that answers nothing by itself. Each {@link #call} is recorded and returned
 * as a {@link Call} the test drives (first byte, deltas, finish, failure) from its own thread after the call was
 * made, as a real provider would from its threads; {@link Call#cancelled()} shows whether the gateway closed it.
 */
public final class ScriptedModelProvider implements ModelProvider {

    private final String name;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private volatile Consumer<Call> onCall = call -> {
    };
    private volatile RuntimeException throwOnCall;

    public ScriptedModelProvider(String name) {
        this.name = name;
    }

    /** Runs {@code hook} inside every {@link #call}, before it returns (e.g. to look at the ledger). */
    public void whenCalled(Consumer<Call> hook) {
        this.onCall = hook;
    }

    /** Makes every following {@link #call} throw instead of starting. */
    public void throwOnCall(RuntimeException exception) {
        this.throwOnCall = exception;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
        if (throwOnCall != null) {
            throw throwOnCall;
        }
        Call call = new Call(route, request, maxTokens, listener);
        calls.add(call);
        onCall.accept(call);
        return call;
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public Call onlyCall() {
        if (calls.size() != 1) {
            throw new AssertionError("expected exactly one call to " + name + ", got " + calls.size());
        }
        return calls.get(0);
    }

    public Call lastCall() {
        if (calls.isEmpty()) {
            throw new AssertionError("no call to " + name);
        }
        return calls.get(calls.size() - 1);
    }

    /**
     * One call. Like a real provider it delivers events holding its own lock, and cancelling takes that lock too —
     * so a caller that cancels while holding a lock the events need would deadlock, as it would in production.
     */
    public static final class Call implements UpstreamCall {
        private final ProviderRoute route;
        private final ChatRequest request;
        private final int maxTokens;
        private final UpstreamListener listener;
        private volatile int cancels;

        Call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener) {
            this.route = route;
            this.request = request;
            this.maxTokens = maxTokens;
            this.listener = listener;
        }

        private volatile boolean closesLater;
        private Runnable whenClosed;
        /** Whether the call is held back by the client ({@link #pause()}), as a transport would be. */
        private volatile boolean paused;

        @Override
        public void pause() {
            paused = true;
        }

        @Override
        public void resume() {
            paused = false;
        }

        public boolean paused() {
            return paused;
        }

        @Override
        public synchronized void cancel() {
            cancels++;
        }

        /** Like a network provider: the close takes effect later ({@link #closeNow()}) when asked to. */
        @Override
        public void cancel(Runnable closed) {
            synchronized (this) {
                cancels++;
                if (closesLater) {
                    whenClosed = closed;
                    return;
                }
            }
            closed.run();
        }

        /** From now on a client's cancel is reported closed only by {@link #closeNow()}. */
        public Call closingLater() {
            closesLater = true;
            return this;
        }

        /** The connection is closed now: the cancel reports it (once). */
        public void closeNow() {
            Runnable closed;
            synchronized (this) {
                closed = whenClosed;
                whenClosed = null;
            }
            if (closed != null) {
                closed.run();
            }
        }

        public boolean cancelled() {
            return cancels > 0;
        }

        public ProviderRoute route() {
            return route;
        }

        public ChatRequest request() {
            return request;
        }

        public int maxTokens() {
            return maxTokens;
        }

        public synchronized Call firstByte() {
            listener.onFirstByte();
            return this;
        }

        public synchronized Call delta(String text) {
            listener.onDelta(text);
            return this;
        }

        /** The provider tells its count of the prompt before the answer ends (Anthropic's message_start). */
        public synchronized Call promptCounted(long promptTokens) {
            listener.onPromptCounted(promptTokens);
            return this;
        }

        public synchronized Call text(AnswerChannel channel, String text) {
            listener.onText(channel, text);
            return this;
        }

        public synchronized Call toolCalls(String toolCallsJson) {
            listener.onToolCallDelta(toolCallsJson);
            return this;
        }

        public synchronized Call logprobs(String contentJson) {
            listener.onLogprobs(contentJson);
            return this;
        }

        /** The answer is complete; the provider's usage report may still follow (OpenAI's finishing chunk). */
        public synchronized Call finishReason(String reason) {
            return finishReason(reason, null);
        }

        /** The finishing chunk, with the usage the provider reported in it (or before). */
        public synchronized Call finishReason(String reason, TokenUsage usageSoFar) {
            listener.onFinishReason(reason, usageSoFar);
            return this;
        }

        public synchronized void finish(String reason, TokenUsage reportedUsage) {
            listener.onFinish(reason, reportedUsage);
        }

        /** The provider cannot express the request (nothing was sent): the client's fault, {@code param} at it. */
        public synchronized void refuseAsInvalid(String param, String message) {
            listener.onFailure(UpstreamFailure.invalidRequest(param, message));
        }

        /** The provider answered something that is no answer of its API ({@link UpstreamFailure#brokenAnswer}). */
        public synchronized void answerBroken() {
            listener.onFailure(UpstreamFailure.brokenAnswer("unreadable chunk from scripted"));
        }

        public synchronized void fail(int status, boolean retryable, boolean rateLimited, Duration retryAfter) {
            listener.onFailure(new UpstreamFailure(status, retryable, rateLimited, retryAfter,
                    "scripted HTTP " + status));
        }
    }
}
