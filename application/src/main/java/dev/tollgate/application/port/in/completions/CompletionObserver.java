package dev.tollgate.application.port.in.completions;

import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.quota.RateLimitReport;
import dev.tollgate.domain.shared.Usd;

/**
 * Receives one completion as it happens. Calls come from one thread at a time, in order: any number of
 * {@link #onDelta}, then exactly one of {@link #onComplete} or {@link #onFailure} — or neither when the client
 * left — and last, once, {@link #onSettled}.
 */
public interface CompletionObserver {

    /** The traffic limits admitted the request (before anything else); what to report in rate-limit headers. */
    default void onAdmitted(RateLimitReport report) {
    }

    /**
     * The request is admitted and paid for and goes upstream next. False when its client has been answered
     * meanwhile — a surface answers 503 when the admission waits too long for its stores (a slow database under the
     * hold) — or has left ({@link #clientGone()}), and then nothing runs: what the request took is given back and it
     * is recorded at no charge.
     */
    default boolean onReady() {
        return true;
    }

    /**
     * Asked when {@link #onReady()} said no: whether that was because the client left (its connection closed while
     * the request waited for its admission) rather than because it was answered. The request is then recorded as
     * cancelled rather than failed; either way nothing went upstream and nothing was charged.
     */
    default boolean clientGone() {
        return false;
    }

    /**
     * The upstream's first output arrived (text, a tool call, or the end of its answer); at most once, before any
     * delta, tool call, log probabilities or completion. A provider that fails before its first output is replaced
     * without this being called.
     */
    void onStarted(String provider);

    /** Output text, in order. */
    void onDelta(String text);

    /** Refusal or reasoning text, in order, interleaved with the deltas as the provider sent them. */
    default void onText(AnswerChannel channel, String text) {
    }

    /**
     * Tool-call output, in order: a {@code delta.tool_calls} JSON array in the chat-completions streaming shape.
     */
    void onToolCallDelta(String toolCallsJson);

    /**
     * Token log probabilities for the output that comes next (asked for with {@code logprobs: true}): a JSON array
     * of OpenAI's {@code logprobs.content} entries.
     */
    default void onLogprobs(String contentJson) {
    }

    /**
     * One attempt at a provider failed ({@code status}: its HTTP status, 504 for a timeout, 502 when unreachable or
     * unreadable); another route or a retry may still serve the request. For every failed attempt, whether the
     * client saw it or not — what monitoring needs when a fallback hides a failing provider.
     */
    default void onAttemptFailed(String provider, int status) {
    }

    void onComplete(CompletionResult result);

    /** @param failure {@link CompletionFailure#afterOutput()} tells whether any delta was delivered before it */
    void onFailure(CompletionFailure failure);

    /**
     * The request is over and settled: its ledger status ({@code completed}, {@code failed}, {@code cancelled}),
     * the provider of its last attempt (null when none was asked: the client was answered before the request ran),
     * the tokens it is billed for ({@link TokenUsage#NONE} when it is charged
     * nothing) and its charge. Also called when the client has left.
     */
    default void onSettled(String provider, String status, TokenUsage billed, Usd charged) {
    }
}
