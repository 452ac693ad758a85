package dev.tollgate.adapter.in.http.common;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.application.port.in.playground.PlaygroundKeyUnavailableException;
import dev.tollgate.application.port.in.session.InvalidFormTokenException;
import dev.tollgate.application.port.in.session.SessionRequiredException;
import dev.tollgate.application.port.in.account.AccountAlreadyExistsException;
import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ReadOnlyManagementKeyException;
import dev.tollgate.application.port.in.completions.CatalogUnavailableException;
import dev.tollgate.application.port.in.completions.ClientAnsweredException;
import dev.tollgate.application.port.in.completions.InsufficientQuotaException;
import dev.tollgate.application.port.in.completions.InvalidApiKeyException;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.completions.UnsupportedCapabilityException;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.in.traffic.TrafficLimitsUnavailableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.time.Clock;

/** HTTP adapter: the one place that maps use-case refusals to statuses (§7). */
@Produces
@Singleton
public final class UseCaseExceptionHandler implements ExceptionHandler<UseCaseException, HttpResponse<?>> {

    /**
     * The longest {@code Retry-After} of a {@code rate_limit_exceeded} a client is told to retry after: a minute,
     * the longest request window. Beyond it the refusal carries {@code x-should-retry: false}.
     */
    static final long LONGEST_WAIT_TO_RETRY_SECONDS = 60;

    private final Clock clock;
    private final MeterRegistry registry;

    UseCaseExceptionHandler(Clock clock, MeterRegistry registry) {
        this.clock = clock;
        this.registry = registry;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, UseCaseException exception) {
        HttpStatus status = statusOf(exception);
        String type = ApiErrors.genericModelError(status, null).type();
        String param = null;
        if (exception instanceof InsufficientQuotaException) {
            type = "insufficient_quota";
        } else if (exception instanceof UnsupportedCapabilityException unsupported) {
            param = unsupported.param();
        } else if (exception instanceof ModelNotFoundException) {
            param = "model";
        } else if (exception instanceof RateLimitExceededException limited) {
            type = "rate_limit_error";
            RateLimitHeaders.remember(request, limited.report());
            Counter.builder("tollgate.rate.limited").description("Requests refused by a traffic limit (§8)")
                    .tag("kind", limited.refusal().kind().name().toLowerCase(java.util.Locale.ROOT))
                    .tag("scope", limited.refusal().scope().code()).register(registry).increment();
        }
        var response = ApiErrors.respond(request, status, exception.getMessage(),
                new ApiErrors.ModelError(type, exception.code(), param), clock);
        if (exception instanceof InsufficientQuotaException) {
            // A billing state, not throttling: the openai SDK would otherwise retry it (sdk-contract.md).
            response.header("x-should-retry", "false");
        } else if (exception instanceof RateLimitExceededException limited) {
            // Accurate: the openai SDK sleeps whatever it is told (sdk-contract.md). A wait longer than a client's
            // small retry budget (a distinct-source set stays full for up to an hour) is not one to sleep through
            // inside a call: such a refusal says so, and the client decides when to come back.
            retryAfter(response, limited.refusal().retryAfterSeconds());
        } else if (exception instanceof TrafficLimitsUnavailableException) {
            response.header("Retry-After", "1");
        } else if (exception instanceof CatalogUnavailableException || exception instanceof ClientAnsweredException) {
            // The catalog is looked at again at most once a second by default: a short wait is enough.
            response.header("Retry-After", "2");
        }
        return response;
    }

    /**
     * {@code Retry-After} as it is, and for a wait longer than {@link #LONGEST_WAIT_TO_RETRY_SECONDS} also
     * {@code x-should-retry: false}: the openai SDK sleeps whatever it is told (sdk-contract.md), and a wait of an
     * hour is not one to sleep through inside a call — the client decides when to come back.
     */
    public static void retryAfter(MutableHttpResponse<?> response, long seconds) {
        response.header("Retry-After", Long.toString(seconds));
        if (seconds > LONGEST_WAIT_TO_RETRY_SECONDS) {
            response.header("x-should-retry", "false");
        }
    }

    static HttpStatus statusOf(UseCaseException exception) {
        if (exception instanceof InvalidManagementKeyException || exception instanceof InvalidApiKeyException
                || exception instanceof SessionRequiredException) {
            return HttpStatus.UNAUTHORIZED;
        }
        if (exception instanceof ModelNotFoundException) {
            return HttpStatus.NOT_FOUND;
        }
        if (exception instanceof InsufficientQuotaException || exception instanceof RateLimitExceededException) {
            return HttpStatus.TOO_MANY_REQUESTS;
        }
        if (exception instanceof CatalogUnavailableException
                || exception instanceof TrafficLimitsUnavailableException
                || exception instanceof ClientAnsweredException) {
            return HttpStatus.SERVICE_UNAVAILABLE;
        }
        if (exception instanceof EmailNotVerifiedException || exception instanceof ReadOnlyManagementKeyException
                || exception instanceof InvalidFormTokenException
                || exception instanceof PlaygroundKeyUnavailableException) {
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
