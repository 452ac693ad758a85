package dev.tollgate.adapter.in.http.common;

import dev.tollgate.domain.shared.RawKey;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.HttpResponse;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * HTTP adapter: the two error envelopes of §7. The control plane ({@code /api/v1/keys*}) answers
 * {@code {success:false, error:{message, statusCode, code, requestId, timestamp}}} (§7.1 plus the integer
 * {@code code} of sdk-contract.md); every other route answers the model-surface shape
 * {@code {error:{message, type, code, param}}} (§7.2).
 */
public final class ApiErrors {

    public static final DateTimeFormatter MILLIS_UTC =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ApiErrors() {
    }

    /** A §7.2 error: {@code code} is a string such as {@code invalid_api_key}, {@code type} its family. */
    public record ModelError(String type, String code, String param) {
    }

    public static boolean isControlPlane(HttpRequest<?> request) {
        return isControlPlane(request.getPath());
    }

    /**
     * Whether a path (or a raw request target: query and escapes do not matter here) is the control plane's. Extra
     * leading slashes ({@code //api/v1/keys}, which no route serves) do not move it to the model surface's envelope.
     */
    public static boolean isControlPlane(String path) {
        int start = 0;
        while (start + 1 < path.length() && path.charAt(start + 1) == '/' && path.charAt(start) == '/') {
            start++;
        }
        return path.startsWith("/api/", start);
    }

    /**
     * 503 for a database that is down or too slow: nothing was done, and a client may retry in a moment
     * ({@code Retry-After: 2}). {@code cause} says what happened; the envelope adds what it means and the request id.
     */
    public static MutableHttpResponse<Map<String, Object>> storeUnavailable(HttpRequest<?> request, String cause,
            Clock clock) {
        return respond(request, HttpStatus.SERVICE_UNAVAILABLE, cause + "; " + (isControlPlane(request)
                        ? "nothing was changed" : "nothing was sent upstream or charged")
                        + ". Retry in a few seconds (request id " + RequestIds.of(request) + ")",
                genericModelError(HttpStatus.SERVICE_UNAVAILABLE, null), clock)
                .header("Retry-After", "2");
    }

    public static MutableHttpResponse<Map<String, Object>> respond(HttpRequest<?> request, HttpStatus status,
            String message, ModelError modelError, Clock clock) {
        String requestId = RequestIds.of(request);
        MutableHttpResponse<Map<String, Object>> response = HttpResponse.<Map<String, Object>>status(status)
                .contentType(MediaType.APPLICATION_JSON_TYPE)
                .header(RequestIds.HEADER, requestId)
                .body(body(isControlPlane(request), status, message, modelError, requestId, clock));
        if (status == HttpStatus.UNAUTHORIZED) {
            // RFC 9110 §11.6.1: a 401 names the scheme that would be accepted.
            response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        return response;
    }

    /**
     * {@code message} with every key in it masked ({@code gp-[masked]}, {@link RawKey#maskedIn}): a field's value or
     * name a client sent and an error quotes back — G10 wants no raw key outside its one creation response.
     */
    static String withoutKeys(String message) {
        return RawKey.maskedIn(message);
    }

    /** The envelope of the control plane (§7.1) or of the model surface (§7.2); keys quoted in the message masked. */
    public static Map<String, Object> body(boolean controlPlane, HttpStatus status, String rawMessage,
            ModelError modelError, String requestId, Clock clock) {
        String message = withoutKeys(rawMessage);
        Map<String, Object> error = new LinkedHashMap<>();
        Map<String, Object> body = new LinkedHashMap<>();
        if (controlPlane) {
            error.put("message", message);
            error.put("statusCode", status.getCode());
            error.put("code", status.getCode());
            error.put("requestId", requestId);
            error.put("timestamp", MILLIS_UTC.format(Instant.now(clock)));
            body.put("success", false);
        } else {
            error.put("message", message);
            error.put("type", modelError.type());
            error.put("code", modelError.code());
            error.put("param", withoutKeys(modelError.param())); // a field's name may be what the client sent
        }
        body.put("error", error);
        return body;
    }

    /** A number as a person typed it, short, for a message: plain digits when that stays short, else scientific. */
    public static String shown(BigDecimal value) {
        String plain = value.toPlainString();
        // Long ones as JSON writes them, without the zeros a client padded them with (1.000e-41 as 1e-41).
        return plain.length() <= 24 ? plain : value.stripTrailingZeros().toString().replace('E', 'e');
    }

    /** Text a client sent, quoted back in a message: cut after {@code max} characters so the message stays short. */
    public static String shown(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }

    /** A body that is not compressed as its {@code Content-Encoding} header says. */
    public static String undecompressable(String encoding) {
        return "The request body could not be decompressed: it is not "
                + (encoding == null ? "compressed" : shown(encoding.strip(), 32) + " data")
                + " as its Content-Encoding header says. Send the body compressed that way, or uncompressed "
                + "without a Content-Encoding header";
    }

    /** The model-surface classification of a status without a more specific code. */
    public static ModelError genericModelError(HttpStatus status, String param) {
        return switch (status) {
            case BAD_REQUEST, UNPROCESSABLE_ENTITY -> new ModelError("invalid_request_error", "invalid_request", param);
            case UNAUTHORIZED -> new ModelError("authentication_error", "invalid_api_key", param);
            case FORBIDDEN -> new ModelError("permission_error", "forbidden", param);
            case NOT_FOUND -> new ModelError("invalid_request_error", "not_found", param);
            case METHOD_NOT_ALLOWED -> new ModelError("invalid_request_error", "method_not_allowed", param);
            case NOT_IMPLEMENTED -> new ModelError("invalid_request_error", "method_not_implemented", param);
            case REQUEST_ENTITY_TOO_LARGE -> new ModelError("invalid_request_error", "request_too_large", param);
            case UNSUPPORTED_MEDIA_TYPE -> new ModelError("invalid_request_error", "unsupported_media_type", param);
            case SERVICE_UNAVAILABLE -> new ModelError("api_error", "service_unavailable", param);
            case HTTP_VERSION_NOT_SUPPORTED -> new ModelError("invalid_request_error", "http_version_not_supported",
                    param);
            default -> status.getCode() >= 500
                    ? new ModelError("api_error", "internal_error", param)
                    : new ModelError("invalid_request_error", "invalid_request", param);
        };
    }
}
