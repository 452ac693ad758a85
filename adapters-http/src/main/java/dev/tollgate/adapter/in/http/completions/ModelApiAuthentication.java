package dev.tollgate.adapter.in.http.completions;

import dev.tollgate.adapter.in.http.keys.ManagementAuthentication;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.AuthenticateApiKeyUseCase;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

/** HTTP adapter: reads {@code Authorization: Bearer <gp-key>} (§5.1) on {@code /v1/*} and authenticates it. */
@Singleton
public final class ModelApiAuthentication {

    private final AuthenticateApiKeyUseCase authenticate;

    ModelApiAuthentication(AuthenticateApiKeyUseCase authenticate) {
        this.authenticate = authenticate;
    }

    public ApiKeyPrincipal principal(HttpRequest<?> request) {
        return authenticate.authenticate(ManagementAuthentication.bearerToken(request));
    }
}
