package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.account.ReadOutboxUseCase;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * HTTP adapter: {@code GET /outbox}, the mails of the embedded default for its operator. It exists only when no
 * SMTP host is configured (bootstrap then provides the outbox use case) and answers only requests from this
 * machine: the TCP peer must be a loopback address, no forwarding header may be present (a reverse proxy on the
 * same host would otherwise make every visitor look local), and the {@code Host} the client asked for must be a
 * loopback name (a web page whose site's name was pointed at 127.0.0.1 — DNS rebinding — sends its own name).
 * Anyone else gets the ordinary 404.
 */
@Controller
@Requires(beans = ReadOutboxUseCase.class)
@ExecuteOn(TaskExecutors.BLOCKING)
public class OutboxController {

    private static final Pattern IPV4_LOOPBACK = Pattern.compile("127(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-f.]*:[0-9a-f:.]*");

    private final ReadOutboxUseCase outbox;
    private final DashboardPages pages;

    OutboxController(ReadOutboxUseCase outbox, DashboardPages pages) {
        this.outbox = outbox;
        this.pages = pages;
    }

    @Get(value = "/outbox", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> outbox(HttpRequest<?> request) {
        if (!fromThisMachine(request)) {
            return pages.page(HttpStatus.NOT_FOUND, request, "message", "Not found", null, Map.of(
                    "heading", "Not found", "text", "There is no page at this address."));
        }
        List<Map<String, Object>> mails = outbox.recent().stream().map(sent -> {
            Map<String, Object> mail = new LinkedHashMap<>();
            mail.put("sentAt", DashboardPages.time(sent.sentAt()));
            mail.put("to", sent.message().to().value());
            mail.put("subject", sent.message().subject());
            mail.put("text", sent.message().text());
            mail.put("link", sent.message().link() == null ? "" : localPath(sent.message().link()));
            return mail;
        }).toList();
        return pages.page(request, "outbox", "Outbox", "outbox", Map.of("mails", mails));
    }

    static boolean fromThisMachine(HttpRequest<?> request) {
        var headers = request.getHeaders();
        if (headers.contains("Forwarded") || headers.contains("X-Forwarded-For") || headers.contains("X-Real-IP")) {
            return false;
        }
        InetAddress peer = request.getRemoteAddress().getAddress();
        return peer != null && peer.isLoopbackAddress() && loopbackHost(headers.get("Host"));
    }

    /**
     * Whether a {@code Host} header names this machine's loopback: {@code localhost} or a name under it (RFC 6761:
     * those never leave the machine), an IPv4 address in 127.0.0.0/8 or {@code [::1]}, with or without a port. A
     * request without one (HTTP/1.0; no browser sends that) is let through. Only literals are parsed, so nothing
     * here ever asks DNS.
     */
    static boolean loopbackHost(String host) {
        if (host == null) {
            return true;
        }
        String name = host.strip().toLowerCase(Locale.ROOT);
        if (name.startsWith("[")) {
            int end = name.indexOf(']');
            return end > 0 && (end == name.length() - 1 || name.charAt(end + 1) == ':')
                    && loopbackIpv6(name.substring(1, end));
        }
        int colon = name.indexOf(':');
        if (colon >= 0) {
            name = name.substring(0, colon);
        }
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.equals("localhost") || name.endsWith(".localhost") || IPV4_LOOPBACK.matcher(name).matches();
    }

    private static boolean loopbackIpv6(String text) {
        if (!IPV6.matcher(text).matches()) {
            return false;
        }
        try {
            // With a colon it is an IPv6 literal to the JDK: parsed (or refused), never looked up.
            return InetAddress.getByName(text).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The link's path and query: it opens on whatever host the operator reached this page with. */
    private static String localPath(String link) {
        try {
            URI uri = URI.create(link);
            return uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
