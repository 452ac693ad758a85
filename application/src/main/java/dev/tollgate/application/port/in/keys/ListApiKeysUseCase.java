package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import java.util.List;

/** Use case: list the caller's regular keys, at most 100, newest first ({@code GET /api/v1/keys}). */
public interface ListApiKeysUseCase {

    List<ApiKeyDetails> list(ManagementPrincipal principal, ListApiKeysQuery query);
}
