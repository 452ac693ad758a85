package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.application.port.in.auth.AuthenticateManagementKeyUseCase;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.util.List;

/** HTTP adapter: reads {@code Authorization: Bearer <gpm-key>} (§5.1) and authenticates it. */
@Singleton
public final class ManagementAuthentication {

    private final AuthenticateManagementKeyUseCase authenticate;

    ManagementAuthentication(AuthenticateManagementKeyUseCase authenticate) {
        this.authenticate = authenticate;
    }

    public ManagementPrincipal principal(HttpRequest<?> request) {
        return authenticate.authenticate(bearerToken(request));
    }

    /**
     * The token of the request's one {@code Bearer} credential, or {@code null} when there is none — or more than
     * one: two {@code Authorization} headers are ambiguous, and neither is guessed at — or when the URL carries a
     * key as well (G12: keys only in {@code Authorization}; a key in a URL lands in proxy and browser logs, and a
     * request that sends one is refused whatever its header says, so that the habit fails at once).
     */
    public static String bearerToken(HttpRequest<?> request) {
        List<String> headers = request.getHeaders().getAll(HttpHeaders.AUTHORIZATION);
        if (headers.size() != 1 || keyInUrl(request)) {
            return null;
        }
        return bearerToken(headers.get(0));
    }

    /** Whether a query parameter's value (decoded) is, or holds, a {@code gp-} or {@code gpm-} key. */
    static boolean keyInUrl(HttpRequest<?> request) {
        String query = request.getUri().getRawQuery();
        if (query == null || query.isEmpty()) {
            return false;
        }
        for (List<String> values : request.getParameters().asMap().values()) {
            for (String value : values) {
                String token = value.strip();
                String bearer = bearerToken(token);
                if (bearer != null) {
                    token = bearer;
                }
                if (token.startsWith("gp-") || token.startsWith("gpm-")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The token of a {@code Bearer} credential, or {@code null} when there is none. */
    public static String bearerToken(String header) {
        if (header == null) {
            return null;
        }
        String trimmed = header.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0 || !trimmed.substring(0, space).equalsIgnoreCase("Bearer")) {
            return null;
        }
        return trimmed.substring(space + 1).strip();
    }
}
