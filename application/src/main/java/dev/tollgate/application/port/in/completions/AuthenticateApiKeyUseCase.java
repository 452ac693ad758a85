package dev.tollgate.application.port.in.completions;

/** Use case: authenticate a bearer credential on the model surface {@code /v1/*} (§5). */
public interface AuthenticateApiKeyUseCase {

    /** @throws InvalidApiKeyException missing, malformed, unknown, disabled, expired or deleted key, or a gpm- key */
    ApiKeyPrincipal authenticate(String bearerToken);
}
