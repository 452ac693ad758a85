package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Optional;

/** Out port: accounts and their prepaid balances. */
public interface AccountRepository {

    /** Stores a new account; {@code false} (and nothing stored) when its e-mail is taken. */
    boolean insert(Account account);

    Optional<Account> findById(AccountId id);

    Optional<Account> findByEmail(Email email);

    /** Reads the account and locks it until the surrounding transaction ends (serialises per-account rules). */
    Optional<Account> lockById(AccountId id);

    /** @return {@code false} when no such account exists */
    boolean markEmailVerified(AccountId id, Instant now);

    /** Atomically adds to the balance; @return the new balance, empty when no such account exists. */
    Optional<Usd> credit(AccountId id, Usd amount, Instant now);
}
