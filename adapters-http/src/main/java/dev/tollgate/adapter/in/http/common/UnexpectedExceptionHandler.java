package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.netty.handler.codec.compression.DecompressionException;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Clock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP adapter: a body that cannot be decompressed as its {@code Content-Encoding} says is the client's mistake
 * (400). Anything unforeseen is logged with the request id and answered with a 500 envelope that
 * reveals nothing internal (no stack trace, no SQL). A database that cannot be reached or does not answer in time
 * (connection failures, the pool's or a statement's timeout) is not a bug but an outage: 503 with a
 * {@code Retry-After}, so clients back off and retry (money checks fail closed: nothing went upstream).
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
        if (storeUnavailable(exception)) {
            LOG.warn("Database unavailable for {} {} ({}): {}", request.getMethodName(), request.getPath(), requestId,
                    exception.getMessage());
            return ApiErrors.storeUnavailable(request, "The gateway's database is unavailable", clock);
        }
        if (undecodableBody(exception)) {
            String encoding = request.getHeaders().get("Content-Encoding");
            return ApiErrors.respond(request, HttpStatus.BAD_REQUEST, ApiErrors.undecompressable(encoding),
                    ApiErrors.genericModelError(HttpStatus.BAD_REQUEST, null), clock);
        }
        if (undecodableForm(exception)) {
            return ApiErrors.respond(request, HttpStatus.BAD_REQUEST, "The form body could not be read: it is not "
                    + "valid application/x-www-form-urlencoded data (a '%' must start an escape of two hexadecimal "
                    + "digits, e.g. %25 for '%' itself)", ApiErrors.genericModelError(HttpStatus.BAD_REQUEST, null),
                    clock);
        }
        LOG.error("Unexpected failure of {} {} ({})", request.getMethodName(), request.getPath(), requestId,
                exception);
        return ApiErrors.respond(request, HttpStatus.INTERNAL_SERVER_ERROR,
                "Internal error; quote request id " + requestId + " when reporting it",
                ApiErrors.genericModelError(HttpStatus.INTERNAL_SERVER_ERROR, null), clock);
    }

    /** Whether the body could not be decompressed as its {@code Content-Encoding} says: the client's mistake. */
    static boolean undecodableBody(Throwable error) {
        return anyCause(error, DecompressionException.class::isInstance);
    }

    /** Whether a form body could not be decoded (Netty's form decoder refuses a broken escape): the client's. */
    static boolean undecodableForm(Throwable error) {
        return anyCause(error, HttpPostRequestDecoder.ErrorDataDecoderException.class::isInstance);
    }

    /** Whether {@code error} or any of its causes matches. */
    private static boolean anyCause(Throwable error, Predicate<Throwable> matches) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (matches.test(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the failure is the database being unreachable or too slow: a transient or recoverable JDBC error, an
     * SQL state of class 08 (connection), 53 (insufficient resources) or 57 (operator intervention, which includes a
     * statement cancelled by its timeout), or a pooled connection found closed under the request — the pool closes
     * a connection whose database went away, and the next use of it reports only that, without the cause or a state
     * (HikariCP's "Connection is closed").
     */
    static boolean storeUnavailable(Throwable error) {
        return anyCause(error, t -> t instanceof SQLTransientException || t instanceof SQLRecoverableException
                || t instanceof SQLException sql && (sql.getSQLState() != null
                        ? sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("53")
                                || sql.getSQLState().startsWith("57")
                        : POOL_CLOSED_CONNECTION.equals(sql.getMessage())));
    }

    /** What HikariCP's stand-in for a connection it closed answers to every use. */
    private static final String POOL_CLOSED_CONNECTION = "Connection is closed";
}
