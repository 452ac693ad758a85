package dev.tollgate.application.service.managementkey;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.CreatedManagementKey;
import dev.tollgate.application.port.in.managementkey.DeleteManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.DisableManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.EnableManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.ListManagementKeysUseCase;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyOverview;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.managementkey.ManagementKeyPolicy;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Service: creating, listing, disabling, enabling and deleting management keys. The 25-active rule is checked
 * under a lock on the account row, so concurrent creations (or enablings) cannot exceed it. A key addressed by id
 * is looked up within its owner's account only: another account's key is "not found", like a key that never was.
 */
public final class ManagementKeyService implements CreateManagementKeyUseCase, DisableManagementKeyUseCase,
        EnableManagementKeyUseCase, DeleteManagementKeyUseCase, ListManagementKeysUseCase {

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

    @Override
    public void disable(AccountId owner, ManagementKeyId id) {
        transactions.inTransaction(() -> {
            ManagementKey key = ownedKey(lockAccount(owner), id);
            key.disable(clock.instant());
            managementKeys.update(key);
            return null;
        });
    }

    @Override
    public void enable(AccountId owner, ManagementKeyId id) {
        transactions.inTransaction(() -> {
            Instant now = clock.instant();
            Account account = lockAccount(owner);
            ManagementKey key = ownedKey(account, id);
            if (key.state(now) == ManagementKeyState.DISABLED) {
                if (!ManagementKeyPolicy.roomForAnotherActiveKey(managementKeys.countActive(account.id(), now))) {
                    throw new ManagementKeyLimitReachedException();
                }
                key.enable(now);
                managementKeys.update(key);
            }
            return null;
        });
    }

    @Override
    public void delete(AccountId owner, ManagementKeyId id) {
        transactions.inTransaction(() -> {
            ManagementKey key = ownedKey(lockAccount(owner), id);
            managementKeys.delete(key.id());
            return null;
        });
    }

    @Override
    public ManagementKeyOverview list(AccountId accountId) {
        Instant now = clock.instant();
        List<ManagementKeyOverview.Entry> entries = managementKeys.listByAccount(accountId).stream()
                .map(k -> new ManagementKeyOverview.Entry(k, k.state(now)))
                .toList();
        long active = entries.stream().filter(e -> e.state() == ManagementKeyState.ACTIVE).count();
        return new ManagementKeyOverview(entries, active);
    }

    private ManagementKey ownedKey(Account owner, ManagementKeyId id) {
        return managementKeys.findById(id)
                .filter(k -> k.accountId().equals(owner.id()))
                .orElseThrow(ManagementKeyNotFoundException::new);
    }

    private Account lockAccount(AccountId id) {
        return accounts.lockById(id).orElseThrow(AccountNotFoundException::new);
    }

    private Account lockAccount(Email email) {
        Account account = accounts.findByEmail(email).orElseThrow(() -> new AccountNotFoundException(email));
        return accounts.lockById(account.id()).orElseThrow(() -> new AccountNotFoundException(email));
    }
}
