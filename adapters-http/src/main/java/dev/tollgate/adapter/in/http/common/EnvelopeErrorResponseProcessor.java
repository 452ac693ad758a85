package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Primary;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.convert.format.ReadableBytes;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.Map;

/**
 * HTTP adapter: errors raised by the framework itself (no such route, wrong method, body too large, unreadable
 * body, unsupported media type) get the same envelopes as the service's own errors, never Micronaut's default.
 */
@Primary
@Singleton
public final class EnvelopeErrorResponseProcessor implements ErrorResponseProcessor<Map<String, Object>> {

    private final Clock clock;
    private final long maxRequestSize;

    EnvelopeErrorResponseProcessor(Clock clock,
            @Value("${micronaut.server.max-request-size:10485760}") @ReadableBytes long maxRequestSize) {
        this.clock = clock;
        this.maxRequestSize = maxRequestSize;
    }

    @Override
    public MutableHttpResponse<Map<String, Object>> processResponse(ErrorContext context,
            MutableHttpResponse<?> response) {
        HttpStatus status = response.getStatus();
        String message = messageFor(context, status);
        MutableHttpResponse<Map<String, Object>> envelope = ApiErrors.respond(context.getRequest(), status, message,
                ApiErrors.genericModelError(status, null), clock);
        response.getHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("content-type") && !name.equalsIgnoreCase("content-length")) {
                values.forEach(v -> envelope.getHeaders().add(name, v));
            }
        });
        return envelope;
    }

    /** The refusal of a body over {@code micronaut.server.max-request-size}. */
    static String tooLarge(long maxRequestSize) {
        return "Request body is too large: at most " + size(maxRequestSize) + " (after decompression)";
    }

    private static String size(long bytes) {
        return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB"
                : bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " bytes";
    }

    /** What the route takes: JSON on the API surfaces, a form on the dashboard's. */
    private static String unsupportedType(String sent, String path) {
        String wanted = path.startsWith("/api/") || path.startsWith("/v1/") ? "application/json"
                : "a form (application/x-www-form-urlencoded)";
        if (sent == null || sent.isBlank()) {
            return "Unsupported Content-Type: the request has a body but no Content-Type; send " + wanted;
        }
        return "Unsupported Content-Type '" + ApiErrors.shown(sent.strip(), 64) + "': send " + wanted;
    }

    /**
     * Micronaut answers a form over its decoder's limits (128 fields, a field of more than 1 MiB buffered) as a body
     * too large; its exception says which limit it was (e.g. "Number of form fields exceeds configured limit of
     * [128]"). That sentence, or empty for any other refusal.
     */
    private static java.util.Optional<String> formLimit(ErrorContext context) {
        return context.getRootCause().map(Throwable::getMessage)
                .filter(m -> m.startsWith("Number of form fields") || m.startsWith("Length of buffered form field"))
                .map(m -> m.replace("[", "").replace("]", ""));
    }

    private String messageFor(ErrorContext context, HttpStatus status) {
        String method = context.getRequest().getMethodName();
        String path = context.getRequest().getPath();
        return switch (status) {
            case NOT_FOUND -> "No such route: " + method + " " + path;
            case METHOD_NOT_ALLOWED -> "Method " + method + " is not allowed on " + path;
            case REQUEST_ENTITY_TOO_LARGE -> formLimit(context)
                    .map(limit -> "The form is too large: " + limit)
                    .orElse(tooLarge(maxRequestSize));
            case UNSUPPORTED_MEDIA_TYPE -> unsupportedType(context.getRequest().getHeaders().get("Content-Type"),
                    path);
            case NOT_ACCEPTABLE -> "Not acceptable: this route answers application/json";
            case BAD_REQUEST -> context.getErrors().stream().map(Error::getMessage).findFirst()
                    .map(m -> "Bad request: " + m).orElse("Bad request");
            default -> status.getCode() >= 500
                    ? "Internal error; quote the x-request-id header when reporting it"
                    : status.getReason();
        };
    }
}
