package dev.tollgate.bootstrap.wiring;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.auth.AuthenticateManagementKeyService;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.service.keys.ApiKeyManagementService;
import dev.tollgate.domain.shared.KeyHasher;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Wiring: the control-plane use cases (authentication and the five key operations of §4.1). */
@Factory
public class KeysFactory {

    @Singleton
    AuthenticateManagementKeyService authenticateManagementKey(ManagementKeyRepository managementKeys,
            AccountRepository accounts, KeyHasher hasher, Clock clock) {
        return new AuthenticateManagementKeyService(managementKeys, accounts, hasher, clock);
    }

    @Singleton
    ApiKeyManagementService apiKeyManagement(ApiKeyRepository apiKeys, KeySpendRepository spend,
            TransactionRunner transactions, SecretIssuer secrets, Clock clock) {
        return new ApiKeyManagementService(apiKeys, spend, transactions, secrets, clock);
    }
}
