package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.domain.shared.KeyHash;

/** Use case: delete one of the caller's keys; its hash answers 404 afterwards ({@code DELETE /api/v1/keys/:hash}). */
public interface DeleteApiKeyUseCase {

    void delete(ManagementPrincipal principal, KeyHash hash);
}
