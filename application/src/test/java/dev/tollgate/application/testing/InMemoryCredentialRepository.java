package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.PasswordHash;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** In-memory fake of {@link CredentialRepository}. */
public final class InMemoryCredentialRepository implements CredentialRepository {

    private final Map<AccountId, PasswordHash> hashes = new ConcurrentHashMap<>();

    @Override
    public void save(AccountId accountId, PasswordHash hash, Instant now) {
        hashes.put(accountId, hash);
    }

    @Override
    public Optional<PasswordHash> findByAccount(AccountId accountId) {
        return Optional.ofNullable(hashes.get(accountId));
    }

    @Override
    public void delete(AccountId accountId) {
        hashes.remove(accountId);
    }
}
