package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Out port: management keys, found by the hash of the raw key. */
public interface ManagementKeyRepository {

    /** Stores a new key; {@code false} (and nothing stored) when the account has a key of that name. */
    boolean insert(ManagementKey key);

    Optional<ManagementKey> findByHash(KeyHash hash);

    Optional<ManagementKey> findByName(AccountId accountId, KeyName name);

    Optional<ManagementKey> findById(ManagementKeyId id);

    /** Keys that are neither disabled nor expired at {@code now}. */
    long countActive(AccountId accountId, Instant now);

    /** The account's keys, newest first. */
    List<ManagementKey> listByAccount(AccountId accountId);

    /** Writes the mutable state (disabled, updated_at) of an existing key. */
    void update(ManagementKey key);

    /** Removes a key for good, so its hash can never authenticate again; {@code false} when there was none. */
    boolean delete(ManagementKeyId id);

    /**
     * Records that the key authenticated at {@code at}, unless a use within the minute before it is recorded
     * already (so that several instances write at most about once a minute per key).
     */
    void recordUse(ManagementKeyId id, Instant at);
}
