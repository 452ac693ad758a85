package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.domain.shared.KeyHash;

/** Use case: read one of the caller's regular keys ({@code GET /api/v1/keys/:hash}). */
public interface GetApiKeyUseCase {

    /** @throws ApiKeyNotFoundException unknown, deleted or another account's key */
    ApiKeyDetails get(ManagementPrincipal principal, KeyHash hash);
}
