package dev.tollgate.adapter.out.persistence.session;

import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.PasswordHash;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Optional;

/** Persistence adapter: {@link CredentialRepository} on PostgreSQL. */
@Singleton
public class JdbcCredentialRepository implements CredentialRepository {

    private final CredentialRowRepository rows;

    JdbcCredentialRepository(CredentialRowRepository rows) {
        this.rows = rows;
    }

    @Override
    public void save(AccountId accountId, PasswordHash hash, Instant now) {
        rows.upsert(accountId.value(), hash.encoded(), now);
    }

    @Override
    public Optional<PasswordHash> findByAccount(AccountId accountId) {
        return rows.findByAccountId(accountId.value()).map(row -> new PasswordHash(row.passwordHash()));
    }

    @Override
    public void delete(AccountId accountId) {
        rows.deleteByAccountId(accountId.value());
    }
}
