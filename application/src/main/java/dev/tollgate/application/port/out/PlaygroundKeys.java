package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import java.util.Optional;

/**
 * Out port: which regular key of an account bills its dashboard playground (one per account, created on demand;
 * docs/decisions.md, "Playground page").
 */
public interface PlaygroundKeys {

    /** The hash of the account's playground key, if one was ever assigned (it may since have been deleted). */
    Optional<KeyHash> find(AccountId account);

    /** Makes {@code key} the account's playground key, replacing any earlier one. */
    void assign(AccountId account, ApiKeyId key, KeyHash hash);
}
