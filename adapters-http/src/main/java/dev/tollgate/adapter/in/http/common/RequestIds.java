package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * HTTP adapter: gives every request an id, echoed as {@code x-request-id} on every response (errors and streams
 * included, §2.4) and carried in error bodies as {@code requestId}.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public final class RequestIds implements io.micronaut.core.order.Ordered {

    public static final String HEADER = "x-request-id";
    private static final String ATTRIBUTE = "tollgate.request-id";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The id of this request, assigned on first use. */
    public static String of(HttpRequest<?> request) {
        return request.getAttribute(ATTRIBUTE, String.class).orElseGet(() -> {
            String id = newId();
            request.setAttribute(ATTRIBUTE, id);
            return id;
        });
    }

    /** A fresh id, for an answer given before a request object exists (a request head that could not be read). */
    static String newId() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "req_" + HexFormat.of().formatHex(bytes);
    }

    @RequestFilter
    public void assign(HttpRequest<?> request) {
        of(request);
    }

    @ResponseFilter
    public void echo(HttpRequest<?> request, MutableHttpResponse<?> response) {
        response.getHeaders().set(HEADER, of(request));
    }

    @Override
    public int getOrder() {
        return ServerFilterPhase.FIRST.order();
    }
}
