package dev.tollgate.application.port.in.completions;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import java.util.Objects;

/** Who calls the model surface: an enabled regular key and the account it bills. */
public record ApiKeyPrincipal(ApiKeyId apiKeyId, KeyHash keyHash, AccountId accountId) {

    public ApiKeyPrincipal {
        Objects.requireNonNull(apiKeyId);
        Objects.requireNonNull(keyHash);
        Objects.requireNonNull(accountId);
    }
}
