package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.shared.KeyHash;

/** Use case: change name, state, limit or expiry of one of the caller's keys ({@code PATCH /api/v1/keys/:hash}). */
public interface UpdateApiKeyUseCase {

    ApiKeyDetails update(ManagementPrincipal principal, KeyHash hash, ApiKeyChanges changes);
}
