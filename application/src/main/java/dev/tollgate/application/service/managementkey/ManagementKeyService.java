package dev.tollgate.application.service.managementkey;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.CreatedManagementKey;
import dev.tollgate.application.port.in.managementkey.DisableManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyPolicy;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;
import java.time.Instant;

/**
 * Service: creating and disabling management keys. The 25-active rule is checked under a lock on the account
 * row, so concurrent creations cannot exceed it.
 */
public final class ManagementKeyService implements CreateManagementKeyUseCase, DisableManagementKeyUseCase {

    private final AccountRepository accounts;
    private final ManagementKeyRepository managementKeys;
    private final TransactionRunner transactions;
    private final SecretIssuer secrets;
    private final Clock clock;

    public ManagementKeyService(AccountRepository accounts, ManagementKeyRepository managementKeys,
            TransactionRunner transactions, SecretIssuer secrets, Clock clock) {
        this.accounts = accounts;
        this.managementKeys = managementKeys;
        this.transactions = transactions;
        this.secrets = secrets;
        this.clock = clock;
    }

    @Override
    public CreatedManagementKey create(CreateManagementKeyCommand command) {
        return transactions.inTransaction(() -> {
            Instant now = clock.instant();
            Account account = lockAccount(command.email());
            if (!ManagementKeyPolicy.accountMayIssue(account)) {
                throw new EmailNotVerifiedException();
            }
            if (!ManagementKeyPolicy.roomForAnotherActiveKey(managementKeys.countActive(account.id(), now))) {
                throw new ManagementKeyLimitReachedException();
            }
            RawKey raw = secrets.draw(KeyKind.MANAGEMENT);
            ManagementKey key = ManagementKey.issue(account.id(), command.name(), command.access(),
                    secrets.hasher().hash(raw), raw.label(), command.expiresAt(), now);
            if (!managementKeys.insert(key)) {
                throw new ManagementKeyNameTakenException(command.name());
            }
            return new CreatedManagementKey(raw, key);
        });
    }

    @Override
    public void disable(Email email, KeyName name) {
        transactions.inTransaction(() -> {
            Account account = lockAccount(email);
            ManagementKey key = managementKeys.findByName(account.id(), name)
                    .orElseThrow(() -> new ManagementKeyNotFoundException(name));
            key.disable(clock.instant());
            managementKeys.update(key);
            return null;
        });
    }

    private Account lockAccount(Email email) {
        Account account = accounts.findByEmail(email).orElseThrow(() -> new AccountNotFoundException(email));
        return accounts.lockById(account.id()).orElseThrow(() -> new AccountNotFoundException(email));
    }
}
