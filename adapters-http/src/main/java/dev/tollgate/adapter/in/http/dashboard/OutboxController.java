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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP adapter: {@code GET /outbox}, the mails of the embedded default for its operator. It exists only when no
 * SMTP host is configured (bootstrap then provides the outbox use case) and answers only requests from this
 * machine: the TCP peer must be a loopback address and no forwarding header may be present (a reverse proxy on
 * the same host would otherwise make every visitor look local). Anyone else gets the ordinary 404.
 */
@Controller
@Requires(beans = ReadOutboxUseCase.class)
@ExecuteOn(TaskExecutors.BLOCKING)
public class OutboxController {

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
        return peer != null && peer.isLoopbackAddress();
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
