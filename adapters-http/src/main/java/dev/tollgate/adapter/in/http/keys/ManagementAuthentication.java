package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.application.port.in.auth.AuthenticateManagementKeyUseCase;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

/** HTTP adapter: reads {@code Authorization: Bearer <gpm-key>} (§5.1) and authenticates it. */
@Singleton
public final class ManagementAuthentication {

    private final AuthenticateManagementKeyUseCase authenticate;

    ManagementAuthentication(AuthenticateManagementKeyUseCase authenticate) {
        this.authenticate = authenticate;
    }

    public ManagementPrincipal principal(HttpRequest<?> request) {
        return authenticate.authenticate(bearerToken(request.getHeaders().get(HttpHeaders.AUTHORIZATION)));
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
