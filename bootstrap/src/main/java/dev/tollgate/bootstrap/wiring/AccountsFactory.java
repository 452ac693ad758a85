package dev.tollgate.bootstrap.wiring;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.account.AccountService;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.service.managementkey.ManagementKeyService;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Wiring: accounts and management keys (the operator's use cases; later also the dashboard's). */
@Factory
public class AccountsFactory {

    @Singleton
    AccountService accounts(AccountRepository accounts, CreditLedger credits, TransactionRunner transactions,
            Clock clock) {
        return new AccountService(accounts, credits, transactions, clock);
    }

    @Singleton
    ManagementKeyService managementKeys(AccountRepository accounts, ManagementKeyRepository managementKeys,
            TransactionRunner transactions, SecretIssuer secrets, Clock clock) {
        return new ManagementKeyService(accounts, managementKeys, transactions, secrets, clock);
    }
}
