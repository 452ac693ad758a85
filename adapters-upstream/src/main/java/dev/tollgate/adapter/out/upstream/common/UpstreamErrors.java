package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.domain.completion.JsonStrings;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a provider's failure may tell the client, and what only the operator's log gets. A client learns the
 * provider's name (it is in the model list and the ledger) and the status; for a rejection of the request itself
 * (400, 413, 422: the client can change something) also the provider's own error message, with whatever looks like
 * a credential, a URL or an address masked. The body as the provider sent it — which may quote the gateway's key,
 * internal host names or addresses — goes to the log only, masked the same way.
 */
public final class UpstreamErrors {

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamErrors.class);

    private static final Pattern BEARER = Pattern.compile("(?i)\\b(bearer|basic)\\s+[^\\s\"',}]+");
    private static final Pattern KEY = Pattern.compile(
            "\\b(sk|pk|rk|gp|gpm|key|api)[-_][A-Za-z0-9_*.\\-]{5,}[A-Za-z0-9_*]");
    private static final Pattern AWS_KEY = Pattern.compile("\\b(AKIA|ASIA)[0-9A-Z]{16}\\b");
    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?i)\\b(password|passwd|secret|token|api_key|apikey|key)=[^\\s&\"',;)]+");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-fA-F.%]*+:[0-9a-fA-F:.%]*+\\](:\\d+)?");
    /**
     * Three or more labels ending in a lower-case one: not a field path with an index ({@code messages.0.content}:
     * a label of digits only) nor a Java class name ({@code java.net.ConnectException}, {@code io.netty.channel.X}:
     * an upper-case or a further label after it), which the client and the operator need to read. A label is read
     * one way only (digits, then a letter or hyphen, then the rest, none given back): read as "any characters around
     * a letter", a provider's text such as {@code a-a-a-…} was tried every way of splitting it, for seconds. At most
     * 126 labels before the last, as in DNS: Java's matcher goes one call deeper for each repetition of a group, and
     * a text of thousands of labels overflowed its stack.
     */
    private static final Pattern HOST = Pattern.compile(
            "\\b(?:(?i:[0-9]*+[a-z-][a-z0-9-]*+)\\.){2,126}[a-z]{2,}(?::\\d+)?\\b(?!\\.?[A-Za-z0-9_])");
    private static final Pattern LONG_TOKEN = Pattern.compile("\\b[A-Za-z0-9_\\-]{32,}\\b");
    private static final Pattern URL = Pattern.compile("(?i)\\b[a-z][a-z0-9+.\\-]*+://[^\\s\"'<>]+");
    private static final Pattern IPV4 = Pattern.compile("\\b\\d{1,3}(\\.\\d{1,3}){3}(:\\d+)?\\b");
    private static final java.util.List<Set<String>> MESSAGE_MEMBERS = java.util.List.of(Set.of("message"),
            Set.of("error"), Set.of("detail"), Set.of("msg"));

    /**
     * How much of a provider's text is masked and kept: more than a client's message or a log line shows
     * ({@link StreamingExchange#abbreviate}: 300 characters) even when masks shorten it, and little enough that no
     * text a provider sends keeps the event loop busy.
     */
    static final int MASKED_AT_MOST = 4096;

    private UpstreamErrors() {
    }

    /**
     * The text with credentials, URLs, host names and IP addresses in it masked; a text longer than
     * {@value #MASKED_AT_MOST} characters loses the rest, and the word the cut falls into, first.
     */
    public static String mask(String text) {
        String kept = text;
        if (text.length() > MASKED_AT_MOST) {
            int end = MASKED_AT_MOST;
            while (end > 0 && !Character.isWhitespace(text.charAt(end))) {
                end--; // a credential cut in two might not look like one any more
            }
            kept = (end == 0 ? text.substring(0, MASKED_AT_MOST) : text.substring(0, end)) + " ...";
        }
        String masked = BEARER.matcher(kept).replaceAll("$1 [masked]");
        masked = SECRET_PARAMETER.matcher(masked).replaceAll("$1=[masked]");
        masked = KEY.matcher(masked).replaceAll("[key]");
        masked = AWS_KEY.matcher(masked).replaceAll("[key]");
        masked = URL.matcher(masked).replaceAll("[url]");
        masked = IPV6.matcher(masked).replaceAll("[address]");
        masked = IPV4.matcher(masked).replaceAll("[address]");
        masked = HOST.matcher(masked).replaceAll("[host]");
        return LONG_TOKEN.matcher(masked).replaceAll("[token]");
    }

    /** Whether a status is the provider refusing the request as the client made it (it can change something). */
    public static boolean requestRejected(int status) {
        return status == 400 || status == 413 || status == 422;
    }

    /** The provider's own error message from a JSON error body ({@code error.message}), masked; "" if none. */
    public static String providerMessage(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String text = body.strip();
        if (!text.startsWith("{") && !text.startsWith("[")) {
            // A plain-text reason (an audit: "bad request: temperature out of range" was lost); not an HTML page.
            return text.startsWith("<") ? "" : StreamingExchange.abbreviate(mask(text));
        }
        String message = "";
        try {
            // OpenAI's error.message first; then the shapes other servers answer with: TGI's {"error": "…"},
            // FastAPI's {"detail": "…"} or {"detail": [{"msg": "…"}]} (vLLM, Mistral's message.detail[].msg).
            for (Set<String> names : MESSAGE_MEMBERS) {
                message = JsonStrings.memberValues(body, names);
                if (!message.isBlank()) {
                    break;
                }
            }
        } catch (IllegalArgumentException notJson) {
            return "";
        }
        return StreamingExchange.abbreviate(mask(message));
    }

    /** One warning line for the operator: what the provider said, masked and abbreviated. */
    public static void log(String provider, String what, String detail) {
        if (LOG.isWarnEnabled()) {
            LOG.warn("Upstream {} {}{}", provider, what,
                    detail == null || detail.isBlank() ? "" : ": " + StreamingExchange.abbreviate(mask(detail)));
        }
    }
}
