package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.PasswordHash;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link CredentialRepository}: every implementation passes these. */
public abstract class AbstractCredentialRepositoryContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.089Z");
    private PersistenceStores stores;
    private CredentialRepository credentials;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        credentials = stores.credentials();
    }

    @Test
    public void anAccountHasNoPasswordUntilOneIsSaved() {
        Account account = stores.newAccount(NOW);
        assertEquals(Optional.empty(), credentials.findByAccount(account.id()));
        assertEquals(Optional.empty(), credentials.findByAccount(new AccountId(UUID.randomUUID())));
    }

    @Test
    public void savingReplacesTheEarlierHash() {
        Account account = stores.newAccount(NOW);
        Account other = stores.newAccount(NOW);
        credentials.save(account.id(), new PasswordHash("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$first"), NOW);
        credentials.save(other.id(), new PasswordHash("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$other"), NOW);
        credentials.save(account.id(), new PasswordHash("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$second"),
                NOW.plusSeconds(1));
        assertEquals("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$second",
                credentials.findByAccount(account.id()).orElseThrow().encoded());
        assertEquals("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$other",
                credentials.findByAccount(other.id()).orElseThrow().encoded());
    }
}
