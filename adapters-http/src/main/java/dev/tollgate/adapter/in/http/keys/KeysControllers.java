package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.exceptions.HttpStatusException;

/** Path and body rule shared by the control-plane controllers. */
final class KeysControllers {

    static final String BASE = "/api/v1/keys";

    private KeysControllers() {
    }

    /**
     * The JSON object of a management write. §4: management routes require {@code Content-Type: application/json}
     * for bodies, so a body declared as anything else (or not declared) is refused with 415 before it is read.
     */
    static JsonObjectBody jsonBody(HttpRequest<?> request, byte[] body) {
        if (body != null && body.length > 0) {
            MediaType type = request.getContentType().orElse(null);
            if (type == null || !MediaType.APPLICATION_JSON_TYPE.matches(type)) {
                throw new HttpStatusException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be "
                        + "application/json for a management request body, got "
                        + (type == null ? "none" : "'" + type + "'"));
            }
        }
        return JsonObjectBody.parse(body);
    }
}
