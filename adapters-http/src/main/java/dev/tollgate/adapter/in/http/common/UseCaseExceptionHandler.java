package dev.tollgate.adapter.in.http.common;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.application.port.in.account.AccountAlreadyExistsException;
import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ReadOnlyManagementKeyException;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.time.Clock;

/** HTTP adapter: the one place that maps use-case refusals to statuses (§7). */
@Produces
@Singleton
public final class UseCaseExceptionHandler implements ExceptionHandler<UseCaseException, HttpResponse<?>> {

    private final Clock clock;

    UseCaseExceptionHandler(Clock clock) {
        this.clock = clock;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, UseCaseException exception) {
        HttpStatus status = statusOf(exception);
        return ApiErrors.respond(request, status, exception.getMessage(),
                new ApiErrors.ModelError(ApiErrors.genericModelError(status, null).type(), exception.code(), null),
                clock);
    }

    static HttpStatus statusOf(UseCaseException exception) {
        if (exception instanceof InvalidManagementKeyException) {
            return HttpStatus.UNAUTHORIZED;
        }
        if (exception instanceof EmailNotVerifiedException || exception instanceof ReadOnlyManagementKeyException) {
            return HttpStatus.FORBIDDEN;
        }
        if (exception instanceof ApiKeyNotFoundException || exception instanceof AccountNotFoundException
                || exception instanceof ManagementKeyNotFoundException) {
            return HttpStatus.NOT_FOUND;
        }
        if (exception instanceof AccountAlreadyExistsException || exception instanceof ManagementKeyNameTakenException
                || exception instanceof ManagementKeyLimitReachedException) {
            return HttpStatus.CONFLICT;
        }
        return HttpStatus.BAD_REQUEST;
    }
}
