package dev.tollgate.adapter.in.http.common;

import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.server.cors.CorsFilter;
import java.time.Clock;

/**
 * HTTP adapter: Micronaut's CORS filter refuses a web page of a foreign origin calling a same-origin route of a
 * gateway on localhost (the dashboard's, its outbox, the public playground; the key-authenticated APIs accept any
 * origin, {@link CrossOriginApi}) — and a preflight that asks for a method the route does not take — with an empty
 * 403. On the API paths that refusal gets the error envelope, saying why, like every other error there.
 */
@ServerFilter({"/v1/**", "/api/**"})
public final class ForeignOriginRefusals implements Ordered {

    private final Clock clock;

    ForeignOriginRefusals(Clock clock) {
        this.clock = clock;
    }

    @ResponseFilter
    public MutableHttpResponse<?> explain(HttpRequest<?> request, MutableHttpResponse<?> response) {
        String origin = request.getHeaders().get(HttpHeaders.ORIGIN);
        if (origin == null || response.getStatus() != HttpStatus.FORBIDDEN || response.getBody().isPresent()) {
            return response;
        }
        MutableHttpResponse<?> envelope = ApiErrors.respond(request, HttpStatus.FORBIDDEN, "Cross-origin request "
                + "refused: " + request.getPath() + " answers only pages served by this gateway, not "
                + ApiErrors.shown(origin, 100) + " (call it from the server, or use /v1/chat/completions with a key)",
                ApiErrors.genericModelError(HttpStatus.FORBIDDEN, null), clock);
        response.getHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase(HttpHeaders.CONTENT_TYPE) && !name.equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH)) {
                values.forEach(v -> envelope.getHeaders().add(name, v));
            }
        });
        return envelope;
    }

    /** Around the CORS filter, so its refusal passes through here. */
    @Override
    public int getOrder() {
        return CorsFilter.CORS_FILTER_ORDER - 1;
    }
}
