package dev.tollgate.application.service.account;

import dev.tollgate.application.port.in.account.AccountAlreadyExistsException;
import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.account.CreditAccountUseCase;
import dev.tollgate.application.port.in.account.FindAccountUseCase;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.in.account.OpenAccountUseCase;
import dev.tollgate.application.port.in.account.VerifyAccountEmailUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import java.time.Clock;
import java.time.Instant;

/** Service: the operator's account use cases (open, verify, credit, look up). */
public final class AccountService implements OpenAccountUseCase, VerifyAccountEmailUseCase, CreditAccountUseCase,
        FindAccountUseCase {

    private final AccountRepository accounts;
    private final TransactionRunner transactions;
    private final Clock clock;

    public AccountService(AccountRepository accounts, TransactionRunner transactions, Clock clock) {
        this.accounts = accounts;
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
                accounts.credit(account.id(), command.openingCredit(), now);
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
        return accounts.credit(account.id(), amount, clock.instant())
                .orElseThrow(() -> new AccountNotFoundException(email));
    }

    @Override
    public Account byEmail(Email email) {
        return accounts.findByEmail(email).orElseThrow(() -> new AccountNotFoundException(email));
    }
}
