package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Contract of {@link PlaygroundKeys}: none until assigned, one per account, a new assignment replaces the old. */
public abstract class AbstractPlaygroundKeysContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

    protected abstract PersistenceStores stores();

    protected abstract PlaygroundKeys playgroundKeys();

    private ApiKey key(Account account) {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, new SecureRandom());
        ApiKey key = ApiKey.issue(account.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName("pg"), null,
                null, null, NOW);
        stores().apiKeys().insert(key);
        return key;
    }

    @Test
    public void anAssignmentIsFoundReplacedAndKeptPerAccount() {
        Account alice = stores().newAccount(NOW);
        Account bob = stores().newAccount(NOW);
        assertTrue(playgroundKeys().find(alice.id()).isEmpty());

        ApiKey first = key(alice);
        playgroundKeys().assign(alice.id(), first.id(), first.hash());
        assertEquals(Optional.of(first.hash()), playgroundKeys().find(alice.id()));
        assertTrue(playgroundKeys().find(bob.id()).isEmpty(), "per account");

        ApiKey second = key(alice);
        playgroundKeys().assign(alice.id(), second.id(), second.hash());
        assertEquals(Optional.of(second.hash()), playgroundKeys().find(alice.id()));
    }
}
