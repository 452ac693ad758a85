package dev.tollgate.bootstrap.wiring;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.auth.AuthenticateManagementKeyService;
import dev.tollgate.application.service.auth.ManagementKeyUsage;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.service.keys.ApiKeyManagementService;
import dev.tollgate.application.service.keys.PlaygroundKeyService;
import dev.tollgate.domain.shared.KeyHasher;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/** Wiring: the control-plane use cases (authentication and the five key operations of §4.1). */
@Factory
public class KeysFactory {

    @Singleton
    AuthenticateManagementKeyService authenticateManagementKey(ManagementKeyRepository managementKeys,
            AccountRepository accounts, KeyHasher hasher, ManagementKeyUsage usage, Clock clock) {
        return new AuthenticateManagementKeyService(managementKeys, accounts, hasher, usage, clock);
    }

    /** "Last used" of management keys, written at most once a minute per key on the blocking executor. */
    @Singleton
    ManagementKeyUsage managementKeyUsage(ManagementKeyRepository managementKeys,
            @Named(TaskExecutors.BLOCKING) ExecutorService executor) {
        return new ManagementKeyUsage(managementKeys, executor);
    }

    @Singleton
    ApiKeyManagementService apiKeyManagement(ApiKeyRepository apiKeys, KeySpendRepository spend,
            TransactionRunner transactions, SecretIssuer secrets, RecentApiKeys recent, Clock clock) {
        return new ApiKeyManagementService(apiKeys, spend, transactions, secrets, recent, clock);
    }

    /** The signed-in dashboard user's playground key (user-billed mode), created on demand. */
    @Singleton
    PlaygroundKeyService playgroundKeys(AccountRepository accounts, ApiKeyRepository apiKeys,
            PlaygroundKeys playgroundKeys, TransactionRunner transactions, SecretIssuer secrets, RecentApiKeys recent,
            Clock clock) {
        return new PlaygroundKeyService(accounts, apiKeys, playgroundKeys, transactions, secrets, recent, clock);
    }

    /**
     * Keys authenticated in the last {@code tollgate.auth.key-cache-ttl} (default 2 s): a key disabled or deleted on
     * another instance is refused everywhere within that time (0 turns the cache off).
     */
    @Singleton
    RecentApiKeys recentApiKeys(ApiKeyRepository apiKeys, Clock clock,
            @Value("${tollgate.auth.key-cache-ttl:2s}") Duration ttl,
            @Value("${tollgate.auth.key-cache-size:100000}") int size) {
        return new RecentApiKeys(apiKeys, clock, ttl, size);
    }
}
