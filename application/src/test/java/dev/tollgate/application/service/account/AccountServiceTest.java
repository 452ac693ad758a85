package dev.tollgate.application.service.account;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.AccountAlreadyExistsException;
import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.testing.InMemoryCreditLedger;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.testing.MutableClock;
import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AccountServiceTest {

    private static final Instant START = Instant.parse("2026-03-04T12:00:00Z");
    private static final Email ALICE = new Email("alice@example.com");

    private final MutableClock clock = new MutableClock(START);
    private PersistenceStores stores;
    private AccountService service;
    private InMemoryCreditLedger credits;

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        credits = new InMemoryCreditLedger();
        service = new AccountService(stores.accounts(), credits, stores.transactions(), clock);
    }

    @Test
    void everyCreditLeavesALineWithTheBalanceAfterIt() {
        AccountId id = service.open(new OpenAccountCommand(ALICE, true, usd("10")));
        clock.advance(java.time.Duration.ofMinutes(5));
        assertEquals(usd("12.5"), service.credit(ALICE, usd("2.5")));

        var lines = credits.history(id, 0, 10);
        assertEquals(2, lines.size());
        assertEquals(usd("2.5"), lines.get(0).amount());
        assertEquals(usd("12.5"), lines.get(0).balanceAfter());
        assertEquals(START.plus(java.time.Duration.ofMinutes(5)), lines.get(0).createdAt());
        assertEquals(dev.tollgate.domain.billing.CreditSource.OPERATOR, lines.get(0).source());
        assertEquals(usd("10"), lines.get(1).amount());
        assertEquals("Opening credit from the operator", lines.get(1).note());
        assertEquals(usd("12.5"), credits.total(id));
    }

    @Test
    void anAccountOpenedWithoutCreditHasNoLine() {
        AccountId id = service.open(new OpenAccountCommand(ALICE, true, Usd.ZERO));
        assertTrue(credits.history(id, 0, 10).isEmpty());
    }

    private static Usd usd(String dollars) {
        return Usd.ofDollars(new BigDecimal(dollars));
    }

    @Test
    void openStoresTheAccountWithoutBalance() {
        AccountId id = service.open(new OpenAccountCommand(ALICE, false, Usd.ZERO));
        Account account = service.byEmail(ALICE);
        assertEquals(id, account.id());
        assertEquals(ALICE, account.email());
        assertFalse(account.emailVerified());
        assertEquals(Usd.ZERO, account.balance());
        assertEquals(START, account.createdAt());
        assertEquals(id, stores.accounts().findById(id).orElseThrow().id());
    }

    @Test
    void openCanMarkTheAddressVerifiedAtOnce() {
        service.open(new OpenAccountCommand(ALICE, true, Usd.ZERO));
        assertTrue(service.byEmail(ALICE).emailVerified());
    }

    @Test
    void anOpeningCreditBecomesTheBalanceExactly() {
        service.open(new OpenAccountCommand(ALICE, true, usd("12.345678")));
        assertEquals(usd("12.345678"), service.byEmail(ALICE).balance());
        assertEquals(12_345_678, service.byEmail(ALICE).balance().micros());
    }

    @Test
    void aDuplicateAddressIsRefusedWhateverItsCase() {
        AccountId first = service.open(new OpenAccountCommand(new Email("Alice@Example.com"), true, usd("5")));
        for (String variant : new String[] {"alice@example.com", "ALICE@EXAMPLE.COM", "  aLiCe@eXample.Com "}) {
            AccountAlreadyExistsException e = assertThrows(AccountAlreadyExistsException.class,
                    () -> service.open(new OpenAccountCommand(new Email(variant), false, usd("100"))));
            assertEquals("account_exists", e.code());
        }
        Account account = service.byEmail(ALICE);
        assertEquals(first, account.id());
        assertEquals(usd("5"), account.balance(), "a refused open does not credit the existing account");
        assertTrue(account.emailVerified());
    }

    @Test
    void differentAddressesAreDifferentAccounts() {
        AccountId alice = service.open(new OpenAccountCommand(ALICE, false, Usd.ZERO));
        AccountId bob = service.open(new OpenAccountCommand(new Email("bob@example.com"), false, Usd.ZERO));
        assertNotEquals(alice, bob);
    }

    @Test
    void creditAddsExactlyAndReturnsTheNewBalance() {
        service.open(new OpenAccountCommand(ALICE, true, usd("0.1")));
        assertEquals(usd("0.3"), service.credit(ALICE, usd("0.2")));
        assertEquals(usd("0.3"), service.byEmail(ALICE).balance());
        assertEquals(300_000, service.byEmail(ALICE).balance().micros());
        assertEquals(usd("0.300001"), service.credit(ALICE, Usd.ofMicros(1)));
        assertEquals(usd("1000000.300001"), service.credit(new Email("ALICE@example.com"), usd("1000000")));
        assertEquals(usd("1000000.300001"), service.byEmail(ALICE).balance());
    }

    @Test
    void creditingOneAccountLeavesOthersAlone() {
        service.open(new OpenAccountCommand(ALICE, true, Usd.ZERO));
        Email bob = new Email("bob@example.com");
        service.open(new OpenAccountCommand(bob, true, usd("1")));
        service.credit(ALICE, usd("50"));
        assertEquals(usd("1"), service.byEmail(bob).balance());
    }

    @Test
    void verifyMarksTheAddressVerified() {
        service.open(new OpenAccountCommand(ALICE, false, usd("3")));
        service.verify(new Email("ALICE@EXAMPLE.COM"));
        Account account = service.byEmail(ALICE);
        assertTrue(account.emailVerified());
        assertEquals(usd("3"), account.balance());
        service.verify(ALICE);
        assertTrue(service.byEmail(ALICE).emailVerified(), "verifying twice is harmless");
    }

    @Test
    void anUnknownAddressIsNotFound() {
        service.open(new OpenAccountCommand(ALICE, false, Usd.ZERO));
        Email nobody = new Email("nobody@example.com");
        AccountNotFoundException e = assertThrows(AccountNotFoundException.class, () -> service.byEmail(nobody));
        assertEquals("account_not_found", e.code());
        assertThrows(AccountNotFoundException.class, () -> service.verify(nobody));
        assertThrows(AccountNotFoundException.class, () -> service.credit(nobody, usd("1")));
        assertEquals(Usd.ZERO, service.byEmail(ALICE).balance());
        assertFalse(service.byEmail(ALICE).emailVerified());
    }
}
