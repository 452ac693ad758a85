package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.shared.Usd;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** In-memory fake of {@link CreditLedger}, for service tests and the port's contract test. */
public final class InMemoryCreditLedger implements CreditLedger {

    private final List<AccountCredit> credits = new ArrayList<>(); // write order

    @Override
    public synchronized void record(AccountCredit credit) {
        if (credits.stream().anyMatch(c -> c.id().equals(credit.id()))) {
            throw new IllegalStateException("duplicate credit " + credit.id());
        }
        credits.add(credit);
    }

    @Override
    public synchronized List<AccountCredit> history(AccountId account, int offset, int limit) {
        List<AccountCredit> newestFirst = new ArrayList<>(credits);
        java.util.Collections.reverse(newestFirst); // later written first among equal times
        return newestFirst.stream().filter(c -> c.accountId().equals(account))
                .sorted(Comparator.comparing(AccountCredit::createdAt).reversed())
                .skip(offset).limit(limit).toList();
    }

    @Override
    public synchronized Usd total(AccountId account) {
        return credits.stream().filter(c -> c.accountId().equals(account)).map(AccountCredit::amount)
                .reduce(Usd.ZERO, Usd::plus);
    }
}
