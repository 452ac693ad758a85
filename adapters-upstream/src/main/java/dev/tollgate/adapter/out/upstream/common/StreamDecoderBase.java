package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.application.port.out.ModelProvider;
import java.time.Duration;

/**
 * Upstream adapter support: what every streaming provider's decoder shares — one terminal event, nothing after a
 * cancel, the classification of rejections (429 and the provider's own capacity statuses are rate limits; those
 * and 5xx are retryable) and of transport failures (retryable). Subclasses read their protocol's lines.
 */
public abstract class StreamDecoderBase implements StreamingExchange.Decoder {

    protected final String provider;
    protected final ModelProvider.UpstreamListener listener;
    private boolean cancelled;
    private boolean finished;

    protected StreamDecoderBase(String provider, ModelProvider.UpstreamListener listener) {
        this.provider = provider;
        this.listener = listener;
    }

    /** How long to wait for a connection to the provider: {@code connect-timeout-ms}, default 5000. */
    public static Duration connectTimeout(CatalogFile.ProviderSettings settings) {
        return Duration.ofMillis(settings.number("connect-timeout-ms", 5000, 1));
    }

    /** The API key from the environment variable named by {@code api-key-env}, or null. */
    public static String apiKey(CatalogFile.ProviderSettings settings) {
        String variable = settings.string("api-key-env", null);
        return variable == null ? null : System.getenv(variable);
    }

    /** Whether more events may be passed on. */
    protected final boolean open() {
        return !finished && !cancelled;
    }

    /** Status codes other than 429 that mean "at capacity" for this provider (Anthropic: 529). */
    protected boolean capacityStatus(int status) {
        return status == 429;
    }

    @Override
    public final synchronized void cancelled() {
        cancelled = true;
    }

    @Override
    public synchronized void ended() {
        if (open()) {
            fail(new ModelProvider.UpstreamFailure(502, true, false, null,
                    provider + " closed the stream before it was complete"));
        }
    }

    @Override
    public final synchronized void rejected(int status, String retryAfter, String body) {
        if (!open()) {
            return;
        }
        boolean capacity = capacityStatus(status);
        // Retryable: at capacity, a server error, or the provider's own request timeout (408).
        fail(new ModelProvider.UpstreamFailure(status, capacity || status >= 500 || status == 408, capacity,
                StreamingExchange.retryAfter(retryAfter),
                provider + " answered HTTP " + status + ": " + StreamingExchange.abbreviate(body)));
    }

    @Override
    public final synchronized void transportFailed(Throwable error) {
        if (!open()) {
            return;
        }
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        fail(new ModelProvider.UpstreamFailure(502, true, false, null, provider + " unreachable: " + cause));
    }

    @Override
    public final synchronized void malformed(String what) {
        if (!open()) {
            return;
        }
        // Not retried: the same provider would most likely send the same again.
        fail(new ModelProvider.UpstreamFailure(502, false, false, null, provider + " sent " + what));
    }

    protected final void finish(String finishReason, dev.tollgate.domain.billing.TokenUsage usage) {
        finished = true;
        listener.onFinish(finishReason, usage);
    }

    protected final void fail(ModelProvider.UpstreamFailure failure) {
        finished = true;
        listener.onFailure(failure);
    }
}
