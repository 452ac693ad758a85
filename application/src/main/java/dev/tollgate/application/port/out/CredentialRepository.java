package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.PasswordHash;
import java.time.Instant;
import java.util.Optional;

/** Out port: the dashboard password hash of an account (accounts opened by the operator CLI have none). */
public interface CredentialRepository {

    /** Sets the account's password hash, replacing any earlier one. */
    void save(AccountId accountId, PasswordHash hash, Instant now);

    Optional<PasswordHash> findByAccount(AccountId accountId);

    /** Removes the account's password, if it has one. */
    void delete(AccountId accountId);
}
