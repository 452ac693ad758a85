package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.domain.completion.AnswerChannel;
import java.io.IOException;
import java.time.Clock;
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
    private boolean produced;
    /** The data lines of the current event while they do not make a readable event yet. */
    private StringBuilder pendingData;

    private final Clock clock;

    protected StreamDecoderBase(String provider, ModelProvider.UpstreamListener listener, Clock clock) {
        this.provider = provider;
        this.listener = listener;
        this.clock = clock;
    }

    /** How long to wait for a connection to the provider: {@code connect-timeout-ms}, default 5000. */
    public static Duration connectTimeout(CatalogFile.ProviderSettings settings) {
        return Duration.ofMillis(settings.number("connect-timeout-ms", 5000, 1));
    }

    /**
     * The API key from the environment variable named by {@code api-key-env}, or null. A variable named but not set
     * (or empty) is logged once at start-up: every request would go out without a key and come back 401.
     */
    public static String apiKey(CatalogFile.ProviderSettings settings) {
        String variable = settings.string("api-key-env", null);
        if (variable == null) {
            return null;
        }
        String key = System.getenv(variable);
        if (key == null || key.isEmpty()) {
            org.slf4j.LoggerFactory.getLogger(StreamDecoderBase.class).warn("Provider {}: api-key-env names {}, which "
                    + "is not set; its requests go without an API key", settings.name(), variable);
            return null;
        }
        return key;
    }

    /**
     * The provider's endpoint: {@code base-url} (or {@code fallback}) with {@code path} after it — an absolute http
     * or https URL, or an error that names the provider and the setting.
     */
    public static java.net.URI endpoint(CatalogFile.ProviderSettings settings, String fallback, String path) {
        String base = settings.string("base-url", fallback);
        if (base == null) {
            throw new IllegalArgumentException("provider " + settings.name() + " needs base-url");
        }
        try {
            java.net.URI uri = new java.net.URI(base.replaceAll("/+$", "") + path);
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                    || uri.getHost() == null) {
                throw new java.net.URISyntaxException(base, "not an absolute http(s) URL with a host");
            }
            return uri;
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("provider " + settings.name() + ": base-url '" + base + "' is not an "
                    + "http(s) URL such as https://api.openai.com/v1 (" + e.getReason() + ")");
        }
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

    /**
     * The status a provider's refusal stands for: its own, unless the provider says in it what another status
     * means (Anthropic answers an empty credit balance with 400 invalid_request_error, OpenAI with 429
     * insufficient_quota, OpenRouter and DeepSeek with 402, which is the gateway's standing with the provider, not
     * the client's request nor the provider's capacity).
     */
    protected int meaning(int status, String body) {
        // OpenAI's 429 insufficient_quota is the gateway's account out of credit with the provider, not capacity:
        // waiting does not help (an audit: it was retried as capacity and answered transfer_agent_capacity_reached).
        return status == 429 && body != null && body.contains("insufficient_quota") ? 402 : status;
    }

    @Override
    public final synchronized void rejected(int answered, String retryAfter, String body) {
        if (!open()) {
            return;
        }
        UpstreamErrors.log(provider, "answered HTTP " + answered, body);
        int status = meaning(answered, body);
        boolean capacity = capacityStatus(status);
        String message = provider + " answered HTTP " + answered;
        if (UpstreamErrors.requestRejected(status)) {
            String said = UpstreamErrors.providerMessage(body);
            message += said.isEmpty() ? "" : ": " + said;
        } else if (ModelProvider.UpstreamFailure.refusesGateway(status)) {
            message += " (the gateway's credentials, credit or model name for this provider; see the gateway's log)";
        }
        // Retryable: at capacity, a server error, or the provider's own request timeout (408). A 401, 402, 403, 404
        // or another 4xx not about the request is the gateway's standing with this provider: another provider of the
        // model is tried, this one not again.
        fail(new ModelProvider.UpstreamFailure(status, capacity || status >= 500 || status == 408, capacity,
                StreamingExchange.retryAfter(retryAfter, clock.instant()), message));
    }

    @Override
    public final synchronized void transportFailed(Throwable error) {
        if (!open()) {
            return;
        }
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        UpstreamErrors.log(provider, "unreachable", cause.toString());
        // What happened in words: the cause's message may name internal hosts and addresses, its class is Java's.
        fail(new ModelProvider.UpstreamFailure(502, true, false, null, provider + " unreachable: "
                + transportProblem(error)));
    }

    /** A transport failure in words a client can read, naming no host, address or Java class. */
    static String transportProblem(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof io.netty.channel.ConnectTimeoutException || t instanceof java.net.SocketTimeoutException) {
                return "the connection timed out";
            }
            if (t instanceof java.net.ConnectException) {
                return "the connection was refused";
            }
            if (t instanceof java.net.UnknownHostException || t instanceof java.nio.channels.UnresolvedAddressException) {
                return "its host name did not resolve";
            }
            if (t instanceof javax.net.ssl.SSLException || t instanceof io.netty.handler.ssl.NotSslRecordException) {
                return "the TLS handshake or session failed";
            }
            if (t.getMessage() != null && t.getMessage().contains("reset by peer")) {
                return "the connection was reset";
            }
        }
        String said = error.getMessage();
        // The exchange's own words (UpstreamHttp), which name nothing of the provider's.
        return said != null && said.startsWith("the connection closed") ? said : "the connection failed";
    }

    @Override
    public final synchronized void malformed(String what) {
        if (!open()) {
            return;
        }
        // Not asked again: the same provider would most likely send the same again; another may serve.
        fail(ModelProvider.UpstreamFailure.brokenAnswer(provider + " sent " + what));
    }

    /** Reads an event's data (JSON text), failing on text that is not such an event. */
    @FunctionalInterface
    protected interface DataReader<T> {
        T read(String data) throws IOException;
    }

    /**
     * Reads the text of one {@code data:} line as an event. SSE joins the data lines of one event with a line feed,
     * so an event may come over several lines. A line that is an event on its own is read as soon as it arrives (a
     * provider that sends an event per line is passed on without waiting for the blank line that ends it); one that
     * is not starts an event of several lines, whose lines are kept — not read again with each further line, which
     * would take time growing with the square of their number — until the blank line ends it
     * ({@link #eventEnded}). Null while there is no event yet.
     */
    protected final <T> T readData(String data, DataReader<T> reader) {
        if (pendingData != null) {
            if (pendingData.length() + 1 + data.length() > SseLineSplitter.MAX_LINE) {
                pendingData = null;
                malformed("an event longer than " + SseLineSplitter.MAX_LINE + " bytes (the gateway's limit)");
            } else {
                pendingData.append('\n').append(data);
            }
            return null;
        }
        try {
            return reader.read(data);
        } catch (IOException e) {
            pendingData = new StringBuilder(data); // perhaps the first line of several: read at the event's end
            return null;
        }
    }

    /** Whether data lines of an unfinished event are waiting for its end ({@link #readData}). */
    protected final boolean dataPending() {
        return pendingData != null;
    }

    /**
     * A blank line ended an event: the event its data lines make together if they were several (null if there were
     * none waiting); if they make none, the provider sent something unreadable and the stream fails.
     */
    protected final <T> T eventEnded(String what, DataReader<T> reader) {
        if (pendingData == null) {
            return null;
        }
        String text = pendingData.toString();
        pendingData = null;
        try {
            return reader.read(text);
        } catch (IOException e) {
            fail(ModelProvider.UpstreamFailure.brokenAnswer("unreadable " + what + " from " + provider));
            return null;
        }
    }

    /**
     * The provider sent something that is no output — a keep-alive comment, a ping, an empty chunk — so it is not
     * silent: the idle timeout starts again. (Output does the same on its own.)
     */
    protected final void alive() {
        listener.onFirstByte();
    }

    @Override
    public final synchronized boolean answerComplete() {
        return finished;
    }

    @Override
    public final synchronized void bodyBegan() {
        if (open()) {
            alive();
        }
    }

    /** Passes on a piece of the answer's text. */
    protected final void delta(String text) {
        produced = true;
        listener.onDelta(text);
    }

    /** Passes on a piece of the answer's refusal or reasoning text. */
    protected final void text(AnswerChannel channel, String text) {
        produced = true;
        listener.onText(channel, text);
    }

    /** Passes on a piece of the answer's tool calls. */
    protected final void toolCallDelta(String toolCallsJson) {
        produced = true;
        listener.onToolCallDelta(toolCallsJson);
    }

    /**
     * An error the provider reported inside its stream: like a 5xx, another provider may be tried — unless output
     * was passed on already, which the client has and cannot be taken back.
     */
    protected final void reportedError(int status, boolean capacity, Object said) {
        String text = String.valueOf(said);
        UpstreamErrors.log(provider, "reported an error in its stream", text);
        fail(new ModelProvider.UpstreamFailure(status, !produced, capacity && !produced, null, provider
                + " reported: " + StreamingExchange.abbreviate(UpstreamErrors.mask(text))));
    }

    /**
     * The provider said in its stream that it refuses the request itself: before any output, the 400 its status
     * would have been (the client's request, with the provider's reason; not retried — an audit saw a context-length
     * error retried four times as a server error); after output, a failure of the answer like any other.
     */
    protected final void reportedRejection(Object said) {
        if (produced) {
            reportedError(502, false, said);
            return;
        }
        String text = String.valueOf(said);
        UpstreamErrors.log(provider, "refused the request in its stream", text);
        fail(new ModelProvider.UpstreamFailure(400, false, false, null, provider + " refused the request: "
                + StreamingExchange.abbreviate(UpstreamErrors.mask(text))));
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
