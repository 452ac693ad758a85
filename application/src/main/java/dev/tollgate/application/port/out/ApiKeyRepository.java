package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.KeyHash;
import java.util.List;
import java.util.Optional;

/** Out port: regular API keys, found by the hash of the raw key. Deleted keys stay stored, marked deleted. */
public interface ApiKeyRepository {

    void insert(ApiKey key);

    /** Any stored key with this hash, deleted ones included. */
    Optional<ApiKey> findByHash(KeyHash hash);

    /** Like {@link #findByHash} and locks the key until the surrounding transaction ends. */
    Optional<ApiKey> lockByHash(KeyHash hash);

    /**
     * One page of the account's keys that are not deleted, newest first (creation order, ties broken by insertion
     * order); disabled keys only when asked for.
     */
    List<ApiKey> listPage(AccountId accountId, boolean includeDisabled, int offset, int limit);

    /** Writes the mutable state of an existing key (name, disabled, limit, expiry, updated_at, deleted_at). */
    void update(ApiKey key);
}
