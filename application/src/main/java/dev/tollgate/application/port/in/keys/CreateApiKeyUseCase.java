package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;

/** Use case: create a regular key for the caller's account ({@code POST /api/v1/keys}, CLI {@code api-key create}). */
public interface CreateApiKeyUseCase {

    CreatedApiKey create(ManagementPrincipal principal, CreateApiKeyCommand command);
}
