package dev.tollgate.application.service.keys;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.spend.KeyUsage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ownership rule shared by the key use cases (§1, §4.1 rule 8): a management key sees only its own
 * account's keys that are not deleted; everything else is "not found". Also attaches usage to keys.
 */
final class OwnedApiKeys {

    private final ApiKeyRepository apiKeys;
    private final KeySpendRepository spend;

    OwnedApiKeys(ApiKeyRepository apiKeys, KeySpendRepository spend) {
        this.apiKeys = apiKeys;
        this.spend = spend;
    }

    ApiKey find(ManagementPrincipal principal, KeyHash hash) {
        return owned(principal, apiKeys.findByHash(hash));
    }

    ApiKey lock(ManagementPrincipal principal, KeyHash hash) {
        return owned(principal, apiKeys.lockByHash(hash));
    }

    private static ApiKey owned(ManagementPrincipal principal, Optional<ApiKey> candidate) {
        return candidate
                .filter(k -> k.accountId().equals(principal.accountId()))
                .filter(k -> k.deletedAt().isEmpty())
                .orElseThrow(ApiKeyNotFoundException::new);
    }

    ApiKeyDetails details(ApiKey key, Instant at) {
        return withUsage(List.of(key), at).get(0);
    }

    List<ApiKeyDetails> withUsage(List<ApiKey> keys, Instant at) {
        Map<ApiKeyId, KeyUsage> usage = spend.usageAt(keys.stream().map(ApiKey::id).toList(), at);
        return keys.stream()
                .map(k -> new ApiKeyDetails(k, usage.getOrDefault(k.id(), KeyUsage.NONE)))
                .toList();
    }
}
