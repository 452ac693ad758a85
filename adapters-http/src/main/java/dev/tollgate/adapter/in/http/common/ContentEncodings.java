package dev.tollgate.adapter.in.http.common;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.time.Clock;

/**
 * HTTP adapter: a request body in a coding the server does not decode is refused with 415 (RFC 9110 §15.5.16),
 * never read as if it were plain. Netty decompresses {@code gzip} and {@code deflate} bodies before any of this runs
 * and drops their {@code Content-Encoding} header; a header still present names a coding nothing here undid
 * ({@code br}, {@code compress}, a typo), so the body is not the JSON it would be parsed as.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public final class ContentEncodings {

    private final Clock clock;

    ContentEncodings(Clock clock) {
        this.clock = clock;
    }

    @RequestFilter
    @Nullable
    public HttpResponse<?> refuseUndecoded(HttpRequest<?> request) {
        String encoding = request.getHeaders().get(HttpHeaders.CONTENT_ENCODING);
        if (encoding == null || encoding.isBlank() || encoding.strip().equalsIgnoreCase("identity")) {
            return null;
        }
        return ApiErrors.respond(request, HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported Content-Encoding '"
                + ApiErrors.shown(encoding.strip(), 32) + "': send the body uncompressed, or compressed with gzip "
                + "or deflate", ApiErrors.genericModelError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, null), clock);
    }
}
