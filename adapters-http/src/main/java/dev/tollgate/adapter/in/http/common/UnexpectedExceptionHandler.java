package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP adapter: anything unforeseen is logged with the request id and answered with a 500 envelope that
 * reveals nothing internal (no stack trace, no SQL).
 */
@Produces
@Singleton
public final class UnexpectedExceptionHandler implements ExceptionHandler<RuntimeException, HttpResponse<?>> {

    private static final Logger LOG = LoggerFactory.getLogger(UnexpectedExceptionHandler.class);
    private final Clock clock;

    UnexpectedExceptionHandler(Clock clock) {
        this.clock = clock;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, RuntimeException exception) {
        String requestId = RequestIds.of(request);
        LOG.error("Unexpected failure of {} {} ({})", request.getMethodName(), request.getPath(), requestId,
                exception);
        return ApiErrors.respond(request, HttpStatus.INTERNAL_SERVER_ERROR,
                "Internal error; quote request id " + requestId + " when reporting it",
                ApiErrors.genericModelError(HttpStatus.INTERNAL_SERVER_ERROR, null), clock);
    }
}
