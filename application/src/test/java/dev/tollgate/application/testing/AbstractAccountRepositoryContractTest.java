package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link AccountRepository}: every implementation passes these. */
public abstract class AbstractAccountRepositoryContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.089Z");
    private PersistenceStores stores;
    private AccountRepository accounts;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        accounts = stores.accounts();
    }

    private static Email uniqueEmail() {
        return new Email("Contract-" + UUID.randomUUID() + "@Example.test");
    }

    @Test
    public void storesAndFindsAnAccountByIdAndEmail() {
        Account account = Account.open(uniqueEmail(), false, NOW);
        assertTrue(accounts.insert(account));

        Account byId = accounts.findById(account.id()).orElseThrow();
        assertEquals(account.email(), byId.email());
        assertFalse(byId.emailVerified());
        assertEquals(Usd.ZERO, byId.balance());
        assertEquals(NOW, byId.createdAt());
        assertEquals(account.id(), accounts.findByEmail(account.email()).orElseThrow().id());
    }

    @Test
    public void refusesASecondAccountWithTheSameEmail() {
        Email email = uniqueEmail();
        assertTrue(accounts.insert(Account.open(email, false, NOW)));
        assertFalse(accounts.insert(Account.open(email, true, NOW)));
    }

    @Test
    public void unknownAccountsAreEmpty() {
        AccountId unknown = AccountId.newId();
        assertEquals(Optional.empty(), accounts.findById(unknown));
        assertEquals(Optional.empty(), accounts.findByEmail(uniqueEmail()));
        assertFalse(accounts.markEmailVerified(unknown, NOW));
        assertEquals(Optional.empty(), accounts.credit(unknown, Usd.ofMicros(1), NOW));
    }

    @Test
    public void marksTheEmailVerified() {
        Account account = Account.open(uniqueEmail(), false, NOW);
        accounts.insert(account);
        assertTrue(accounts.markEmailVerified(account.id(), NOW));
        assertTrue(accounts.findById(account.id()).orElseThrow().emailVerified());
    }

    @Test
    public void creditsAddUpExactly() {
        Account account = Account.open(uniqueEmail(), true, NOW);
        accounts.insert(account);
        assertEquals(Usd.ofMicros(1), accounts.credit(account.id(), Usd.ofMicros(1), NOW).orElseThrow());
        assertEquals(Usd.ofMicros(5_000_001), accounts.credit(account.id(), Usd.ofMicros(5_000_000), NOW).orElseThrow());
        assertEquals(Usd.ofMicros(5_000_001), accounts.findById(account.id()).orElseThrow().balance());
    }

    @Test
    public void lockReadsTheAccountInsideATransaction() {
        Account account = Account.open(uniqueEmail(), true, NOW);
        accounts.insert(account);
        Account locked = stores.transactions().inTransaction(() -> accounts.lockById(account.id()).orElseThrow());
        assertEquals(account.id(), locked.id());
    }
}
