package dev.tollgate.application.service.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.playground.PlaygroundKeyUnavailableException;
import dev.tollgate.application.port.in.playground.ResolvePlaygroundPrincipalUseCase;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.testing.InMemoryPlaygroundKeys;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The signed-in playground's payer: one "Dashboard playground" key per account, created on the first request and
 * reused, issued again after its owner deleted it, refused while disabled, and never for an unverified account.
 */
class PlaygroundKeyServiceTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

    private final MutableClock clock = new MutableClock(NOW);
    private PersistenceStores stores;
    private PlaygroundKeyService service;

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        service = new PlaygroundKeyService(stores.accounts(), stores.apiKeys(), new InMemoryPlaygroundKeys(),
                stores.transactions(), new SecretIssuer(new SecureRandom(), KeyHasher.sha256()),
                new RecentApiKeys(stores.apiKeys(), clock, Duration.ZERO, 10), clock);
    }

    private ApiKey stored(ApiKeyPrincipal principal) {
        return stores.apiKeys().findByHash(principal.keyHash()).orElseThrow();
    }

    @Test
    void theFirstRequestCreatesTheKeyAndLaterOnesReuseIt() {
        Account account = stores.newAccount(NOW);
        ApiKeyPrincipal first = service.forSignedIn(account);
        assertEquals(account.id(), first.accountId());
        assertEquals(ResolvePlaygroundPrincipalUseCase.KEY_NAME, stored(first).name().value());
        assertEquals(first, service.forSignedIn(account));
        assertEquals(1, stores.apiKeys().listPage(account.id(), true, 0, 10).size());
        assertNotEquals(first.keyHash(), service.forSignedIn(stores.newAccount(NOW)).keyHash(), "one per account");
    }

    @Test
    void aDeletedKeyIsReplacedAndADisabledOneRefused() {
        Account account = stores.newAccount(NOW);
        ApiKeyPrincipal first = service.forSignedIn(account);
        ApiKey key = stored(first);
        key.update(new ApiKeyChanges(FieldChange.keep(), FieldChange.set(true), FieldChange.keep(), FieldChange.keep(),
                FieldChange.keep()), NOW);
        stores.apiKeys().update(key);
        assertThrows(PlaygroundKeyUnavailableException.class, () -> service.forSignedIn(account));

        key = stored(first);
        key.delete(NOW);
        stores.apiKeys().update(key);
        ApiKeyPrincipal replacement = service.forSignedIn(account);
        assertNotEquals(first.keyHash(), replacement.keyHash());
    }

    @Test
    void anUnverifiedAccountGetsNoKey() {
        Account account = Account.open(new Email("new@example.test"), false, NOW);
        stores.accounts().insert(account);
        assertThrows(EmailNotVerifiedException.class, () -> service.forSignedIn(account));
        assertEquals(0, stores.apiKeys().listPage(account.id(), true, 0, 10).size());
    }
}
