package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** In-memory fake of {@link AccountRepository}, for service tests and the port's contract test. */
public final class InMemoryAccountRepository implements AccountRepository {

    private final Map<AccountId, Account> byId = new ConcurrentHashMap<>();

    @Override
    public synchronized boolean insert(Account account) {
        if (findByEmail(account.email()).isPresent() || byId.containsKey(account.id())) {
            return false;
        }
        byId.put(account.id(), account);
        return true;
    }

    @Override
    public Optional<Account> findById(AccountId id) {
        return Optional.ofNullable(byId.get(id));
    }

    @Override
    public Optional<Account> findByEmail(Email email) {
        return byId.values().stream().filter(a -> a.email().equals(email)).findFirst();
    }

    @Override
    public Optional<Account> lockById(AccountId id) {
        return findById(id);
    }

    @Override
    public synchronized boolean markEmailVerified(AccountId id, Instant now) {
        Account a = byId.get(id);
        if (a == null) {
            return false;
        }
        byId.put(id, Account.restore(a.id(), a.email(), true, a.balance(), a.createdAt()));
        return true;
    }

    @Override
    public synchronized Optional<Usd> credit(AccountId id, Usd amount, Instant now) {
        Account a = byId.get(id);
        if (a == null) {
            return Optional.empty();
        }
        Usd balance = a.balance().plus(amount);
        byId.put(id, Account.restore(a.id(), a.email(), a.emailVerified(), balance, a.createdAt()));
        return Optional.of(balance);
    }
}
