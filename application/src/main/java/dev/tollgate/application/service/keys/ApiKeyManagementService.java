package dev.tollgate.application.service.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.CreateApiKeyUseCase;
import dev.tollgate.application.port.in.keys.CreatedApiKey;
import dev.tollgate.application.port.in.keys.DeleteApiKeyUseCase;
import dev.tollgate.application.port.in.keys.GetApiKeyUseCase;
import dev.tollgate.application.port.in.keys.ListApiKeysQuery;
import dev.tollgate.application.port.in.keys.ListApiKeysUseCase;
import dev.tollgate.application.port.in.keys.UpdateApiKeyUseCase;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Service: the five key-management use cases of §4.1. Authorization (rule 7) and ownership (rule 8) are
 * checked here; the business rules of a key live in {@link ApiKey}.
 */
public final class ApiKeyManagementService implements ListApiKeysUseCase, GetApiKeyUseCase, CreateApiKeyUseCase,
        UpdateApiKeyUseCase, DeleteApiKeyUseCase {

    private final ApiKeyRepository apiKeys;
    private final OwnedApiKeys owned;
    private final TransactionRunner transactions;
    private final SecretIssuer secrets;
    private final RecentApiKeys recent;
    private final Clock clock;

    public ApiKeyManagementService(ApiKeyRepository apiKeys, KeySpendRepository spend, TransactionRunner transactions,
            SecretIssuer secrets, RecentApiKeys recent, Clock clock) {
        this.apiKeys = apiKeys;
        this.recent = recent;
        this.owned = new OwnedApiKeys(apiKeys, spend);
        this.transactions = transactions;
        this.secrets = secrets;
        this.clock = clock;
    }

    @Override
    public List<ApiKeyDetails> list(ManagementPrincipal principal, ListApiKeysQuery query) {
        List<ApiKey> page = apiKeys.listPage(principal.accountId(), query.includeDisabled(), query.offset(),
                ListApiKeysQuery.PAGE_SIZE);
        return owned.withUsage(page, clock.instant());
    }

    @Override
    public ApiKeyDetails get(ManagementPrincipal principal, KeyHash hash) {
        return owned.details(owned.find(principal, hash), clock.instant());
    }

    @Override
    public CreatedApiKey create(ManagementPrincipal principal, CreateApiKeyCommand command) {
        principal.requireWriteAccess();
        Instant now = clock.instant();
        RawKey raw = secrets.draw(KeyKind.REGULAR);
        ApiKey key = ApiKey.issue(principal.accountId(), secrets.hasher().hash(raw), raw.label(), command.name(),
                command.limit(), command.limitReset(), command.expiresAt(), now);
        apiKeys.insert(key);
        return new CreatedApiKey(raw, owned.details(key, now));
    }

    @Override
    public ApiKeyDetails update(ManagementPrincipal principal, KeyHash hash, ApiKeyChanges changes) {
        principal.requireWriteAccess();
        ApiKeyDetails updated = transactions.inTransaction(() -> {
            Instant now = clock.instant();
            ApiKey key = owned.lock(principal, hash);
            key.update(changes, now);
            apiKeys.update(key);
            return owned.details(key, now);
        });
        recent.forget(hash);
        return updated;
    }

    @Override
    public void delete(ManagementPrincipal principal, KeyHash hash) {
        principal.requireWriteAccess();
        transactions.inTransaction(() -> {
            ApiKey key = owned.lock(principal, hash);
            key.delete(clock.instant());
            apiKeys.update(key);
            return null;
        });
        recent.forget(hash);
    }
}
