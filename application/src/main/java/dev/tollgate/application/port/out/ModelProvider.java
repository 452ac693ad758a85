package dev.tollgate.application.port.out;

import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.completion.AnswerChannel;
import dev.tollgate.domain.completion.ChatRequest;
import java.time.Duration;

/** Out port: one upstream provider (OpenAI-compatible, Anthropic, the simulator, …), always streaming to us. */
public interface ModelProvider {

    /** The provider name the catalog's routes refer to. */
    String name();

    /**
     * Starts a call; events reach {@code listener} on the provider's threads, one at a time, ending with exactly
     * one {@code onFinish} or {@code onFailure} unless cancelled first.
     */
    UpstreamCall call(ProviderRoute route, ChatRequest request, int maxTokens, UpstreamListener listener);

    /** A call under way. */
    interface UpstreamCall {
        /** Stops the upstream request (closes the connection); no event follows. */
        /**
         * Stop reading the answer for now (the client reads slowly): the transport's flow control holds the rest
         * back at the provider. Must not block nor take a lock the call's delivering thread may hold — it is called
         * with the completion's locks held, from the delivering thread itself or another.
         */
        default void pause() {
        }

        /** Read the answer again after {@link #pause()}; the same rules. */
        default void resume() {
        }

        void cancel();

        /**
         * Stops the upstream request for a client that left, and runs {@code closed} once the connection is closed:
         * what the provider had received before it closed still reaches the listener first (the client is billed
         * what the upstream produced until then, G13); nothing follows {@code closed}. By default: {@link #cancel()},
         * then {@code closed} at once.
         */
        default void cancel(Runnable closed) {
            cancel();
            closed.run();
        }
    }

    /** Events of one upstream call. */
    interface UpstreamListener {
        /**
         * Bytes of the answer's body arrived that hold no output (a keep-alive comment, a ping event, a role chunk;
         * never the status line alone): the provider is there. Once output has begun the idle timeout counts from
         * here; before it, the wait for the first output lasts the first-byte timeout, or an idle timeout after the
         * last of these if that is later.
         */
        void onFirstByte();

        void onDelta(String text);

        /** Refusal or reasoning text of the answer, in order (output like {@link #onDelta}, billed the same). */
        default void onText(AnswerChannel channel, String text) {
        }

        /**
         * A piece of the answer's tool calls: the chunk's {@code delta.tool_calls} array as JSON, in the
         * chat-completions streaming shape (entries keyed by {@code index}, arguments in fragments).
         */
        void onToolCallDelta(String toolCallsJson);

        /**
         * Token log probabilities the provider sent for the output that comes next, when the request asked for them:
         * the entries of OpenAI's {@code logprobs.content} array as a JSON array ({@code token}, {@code logprob},
         * {@code bytes}, {@code top_logprobs}), passed through as they are.
         */
        default void onLogprobs(String contentJson) {
        }

        /**
         * The provider's own count of the prompt, told before the answer ends (Anthropic's {@code message_start}):
         * what is billed as the prompt if the answer then fails or the client leaves, instead of the gateway's
         * estimate. A provider that reports usage only at the end never calls it.
         */
        default void onPromptCounted(long promptTokens) {
        }

        /** @param reportedUsage the provider's own token counts, or {@code null} when it reported none */
        void onFinish(String finishReason, TokenUsage reportedUsage);

        /**
         * The answer is complete with this finish reason; only the provider's usage report may still follow. A
         * provider that then sends nothing more (no usage, no end of stream) is finished after a short wait with
         * {@code usageSoFar} — the usage it reported with its answer (some put it in the finishing chunk), or, when
         * {@code null}, the gateway's count — rather than failed at the idle timeout after a whole answer.
         */
        default void onFinishReason(String finishReason, TokenUsage usageSoFar) {
        }

        void onFailure(UpstreamFailure failure);
    }

    /**
     * Why a call failed. {@code retryable}: a connect error, timeout, 429 or 5xx that allows trying again or
     * falling back (only before the first byte); {@code retryAfter} is the provider's hint or {@code null};
     * {@code invalidParam}: set when nothing was sent because the request cannot be expressed in the provider's API
     * (the field at fault, e.g. tool-call arguments that are no JSON object): the client's request, not a provider
     * failure.
     */
    record UpstreamFailure(int status, boolean retryable, boolean rateLimited, Duration retryAfter, String message,
            String invalidParam, boolean brokenAnswer) {

        public UpstreamFailure(int status, boolean retryable, boolean rateLimited, Duration retryAfter,
                String message, String invalidParam) {
            this(status, retryable, rateLimited, retryAfter, message, invalidParam, false);
        }

        public UpstreamFailure(int status, boolean retryable, boolean rateLimited, Duration retryAfter,
                String message) {
            this(status, retryable, rateLimited, retryAfter, message, null, false);
        }

        /**
         * The provider answered with something that is no answer of its API (an unreadable event, a whole document
         * where a stream was asked for): asking it again would most likely bring the same, but another provider of
         * the model may serve the request ({@link #providerFault}).
         */
        public static UpstreamFailure brokenAnswer(String message) {
            return new UpstreamFailure(502, false, false, null, message, null, true);
        }

        /**
         * The provider refused the gateway itself — its credentials (401), its access (403), the upstream model
         * name (404), its credit (402), see {@link #refusesGateway} — or answered something that is no answer of its API ({@link #brokenAnswer}), rather than
         * failing on the client's request or its own load: another provider of the model may serve the request,
         * this one will not however often it is asked.
         */
        public boolean providerFault() {
            return invalidParam == null && (brokenAnswer || refusesGateway(status));
        }

        /**
         * Whether an HTTP status from a provider is it refusing the gateway itself (see {@link #providerFault}): its
         * credentials (401), access (403), model name (404), its credit with the provider (402, "insufficient
         * balance" at OpenRouter and DeepSeek), or any other 4xx that is neither about the client's request (400,
         * 413, 422) nor about time or load (408, 429) — a 424 of a failed generation, say. An audit found a 402
         * answered to the client as its own bad request, and the model's other routes never tried.
         */
        public static boolean refusesGateway(int status) {
            return status >= 400 && status < 500 && status != 400 && status != 408 && status != 413 && status != 422
                    && status != 429;
        }

        /** The request cannot be expressed in this provider's API; {@code param} names the field, as §2.3 does. */
        public static UpstreamFailure invalidRequest(String param, String message) {
            return new UpstreamFailure(400, false, false, null, message, param);
        }
    }
}
