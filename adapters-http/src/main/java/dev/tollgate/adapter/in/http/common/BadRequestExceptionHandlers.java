package dev.tollgate.adapter.in.http.common;

import dev.tollgate.domain.completion.ContextLengthExceeded;
import dev.tollgate.domain.shared.DomainRuleViolation;
import io.micronaut.context.annotation.Factory;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.time.Clock;

/** HTTP adapter: a wrong request shape or a broken business rule is a 400 naming the field (a body of another type: 415). */
@Factory
public class BadRequestExceptionHandlers {

    @Singleton
    ExceptionHandler<InvalidRequestException, HttpResponse<?>> invalidRequest(Clock clock) {
        return (request, e) -> {
            HttpStatus status = HttpStatus.valueOf(e.status());
            return ApiErrors.respond(request, status, e.getMessage(), ApiErrors.genericModelError(status, e.param()),
                    clock);
        };
    }

    @Singleton
    ExceptionHandler<DomainRuleViolation, HttpResponse<?>> domainRuleViolation(Clock clock) {
        return (request, e) -> e instanceof ContextLengthExceeded
                ? ApiErrors.respond(request, HttpStatus.BAD_REQUEST, e.getMessage(),
                        new ApiErrors.ModelError("invalid_request_error", "context_length_exceeded", e.field()), clock)
                : badRequest(request, e.getMessage(), e.field(), clock);
    }

    private static HttpResponse<?> badRequest(HttpRequest<?> request, String message, String param, Clock clock) {
        return ApiErrors.respond(request, HttpStatus.BAD_REQUEST, message,
                ApiErrors.genericModelError(HttpStatus.BAD_REQUEST, param), clock);
    }
}
