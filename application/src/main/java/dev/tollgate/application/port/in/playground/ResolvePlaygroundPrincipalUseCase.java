package dev.tollgate.application.port.in.playground;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.domain.account.Account;

/**
 * Use case: who pays for a signed-in dashboard user's playground request in user-billed mode (§8.2) — the
 * account's own "Dashboard playground" key, created on demand (its secret is never shown; it exists so that the
 * request is billed, limited and listed like any key's: §8.1 buckets, the key's spend limit, the activity table).
 */
public interface ResolvePlaygroundPrincipalUseCase {

    /** The key's name, as it shows in the key list and the activity. */
    String KEY_NAME = "Dashboard playground";

    /**
     * @throws dev.tollgate.application.port.in.auth.EmailNotVerifiedException the account is not verified
     * @throws PlaygroundKeyUnavailableException the owner disabled the playground key, or it expired
     */
    ApiKeyPrincipal forSignedIn(Account account);
}
