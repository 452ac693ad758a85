package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.billing.CreditSource;
import dev.tollgate.domain.shared.Usd;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link CreditLedger}: credits are kept as written (amount, source, note, balance after, time to the
 * millisecond), listed newest first — the later written first among equal times — in pages, summed per account,
 * and never mixed between accounts.
 */
public abstract class AbstractCreditLedgerContractTest {

    protected static final Instant NOW = Instant.parse("2026-03-04T12:00:00.123Z");

    protected abstract PersistenceStores stores();

    protected abstract CreditLedger credits();

    private AccountCredit credit(Account account, long micros, Instant at, String note) {
        AccountCredit credit = AccountCredit.of(account.id(), Usd.ofMicros(micros), CreditSource.OPERATOR, note,
                Usd.ofMicros(micros * 2), at);
        credits().record(credit);
        return credit;
    }

    @Test
    public void creditsAreKeptAsWrittenNewestFirstInPages() {
        Account account = stores().newAccount(NOW);
        AccountCredit first = credit(account, 1_000_000, NOW.minus(Duration.ofDays(2)), "first");
        AccountCredit second = credit(account, 2_500_000, NOW.minus(Duration.ofDays(1)), "second");
        AccountCredit sameTimeEarlier = credit(account, 3, NOW, "same time, written first");
        AccountCredit sameTimeLater = credit(account, 4, NOW, "same time, written later");

        assertEquals(List.of(sameTimeLater, sameTimeEarlier, second, first), credits().history(account.id(), 0, 10));
        assertEquals(List.of(second), credits().history(account.id(), 2, 1));
        assertTrue(credits().history(account.id(), 4, 10).isEmpty());
        assertEquals(Usd.ofMicros(3_500_007), credits().total(account.id()));
    }

    @Test
    public void accountsNeverSeeEachOthersCredits() {
        Account alice = stores().newAccount(NOW);
        Account bob = stores().newAccount(NOW);
        credit(alice, 5_000_000, NOW, "alice");
        AccountCredit bobs = credit(bob, 7, NOW, "bob");
        assertEquals(List.of(bobs), credits().history(bob.id(), 0, 10));
        assertEquals(Usd.ofMicros(7), credits().total(bob.id()));
        assertEquals(Usd.ZERO, credits().total(stores().newAccount(NOW).id()));
    }
}
