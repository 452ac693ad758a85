package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import java.time.Instant;
import java.util.UUID;

/** The out ports of one store (in-memory or PostgreSQL), for the contract tests and service tests. */
public record PersistenceStores(AccountRepository accounts, ApiKeyRepository apiKeys,
        ManagementKeyRepository managementKeys, KeySpendRepository spend, TransactionRunner transactions,
        CredentialRepository credentials, SessionRepository sessions) {

    public static PersistenceStores inMemory() {
        return new PersistenceStores(new InMemoryAccountRepository(), new InMemoryApiKeyRepository(),
                new InMemoryManagementKeyRepository(), new InMemoryKeySpendRepository(),
                new DirectTransactionRunner(), new InMemoryCredentialRepository(), new InMemorySessionRepository());
    }

    /** Opens a fresh verified account with a unique e-mail. */
    public Account newAccount(Instant now) {
        Account account = Account.open(new Email("user-" + UUID.randomUUID() + "@example.test"), true, now);
        if (!accounts.insert(account)) {
            throw new IllegalStateException("could not insert " + account.email());
        }
        return account;
    }
}
