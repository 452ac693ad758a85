package dev.tollgate.application.service.account;

import dev.tollgate.application.port.in.account.AccountAlreadyExistsException;
import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.account.CreditAccountUseCase;
import dev.tollgate.application.port.in.account.FindAccountUseCase;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.in.account.OpenAccountUseCase;
import dev.tollgate.application.port.in.account.VerifyAccountEmailUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.billing.CreditSource;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Instant;

/**
 * Service: the operator's account use cases (open, verify, credit, look up). Every credit — an opening credit
 * included — changes the balance and writes its line in the credit ledger in one transaction.
 */
public final class AccountService implements OpenAccountUseCase, VerifyAccountEmailUseCase, CreditAccountUseCase,
        FindAccountUseCase {

    static final String OPERATOR_NOTE = "Credit from the operator";
    static final String OPENING_NOTE = "Opening credit from the operator";

    private final AccountRepository accounts;
    private final CreditLedger credits;
    private final TransactionRunner transactions;
    private final Clock clock;

    public AccountService(AccountRepository accounts, CreditLedger credits, TransactionRunner transactions,
            Clock clock) {
        this.accounts = accounts;
        this.credits = credits;
        this.transactions = transactions;
        this.clock = clock;
    }

    @Override
    public AccountId open(OpenAccountCommand command) {
        return transactions.inTransaction(() -> {
            Instant now = clock.instant();
            Account account = Account.open(command.email(), command.emailVerified(), now);
            if (!accounts.insert(account)) {
                throw new AccountAlreadyExistsException(command.email());
            }
            if (command.openingCredit().isPositive()) {
                Usd balance = accounts.credit(account.id(), command.openingCredit(), now)
                        .orElseThrow(() -> new AccountNotFoundException(command.email()));
                credits.record(AccountCredit.of(account.id(), command.openingCredit(), CreditSource.OPERATOR,
                        OPENING_NOTE, balance, now));
            }
            return account.id();
        });
    }

    @Override
    public void verify(Email email) {
        Account account = byEmail(email);
        accounts.markEmailVerified(account.id(), clock.instant());
    }

    @Override
    public Usd credit(Email email, Usd amount) {
        Account account = byEmail(email);
        return transactions.inTransaction(() -> {
            Instant now = clock.instant();
            Usd balance = accounts.credit(account.id(), amount, now)
                    .orElseThrow(() -> new AccountNotFoundException(email));
            if (amount.isPositive()) {
                credits.record(AccountCredit.of(account.id(), amount, CreditSource.OPERATOR, OPERATOR_NOTE, balance,
                        now));
            }
            return balance;
        });
    }

    @Override
    public Account byEmail(Email email) {
        return accounts.findByEmail(email).orElseThrow(() -> new AccountNotFoundException(email));
    }

    @Override
    public Account byId(AccountId id) {
        return accounts.findById(id).orElseThrow(AccountNotFoundException::new);
    }
}
