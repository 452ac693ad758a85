package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link ApiKeyRepository}: every implementation passes these. */
public abstract class AbstractApiKeyRepositoryContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.089Z");
    private static final SecureRandom RANDOM = new SecureRandom();
    private PersistenceStores stores;
    private ApiKeyRepository apiKeys;
    private Account account;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        apiKeys = stores.apiKeys();
        account = stores.newAccount(NOW);
    }

    private ApiKey newKey(String name, Instant createdAt) {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        return ApiKey.issue(account.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName(name), null, null,
                null, createdAt);
    }

    @Test
    public void storesEveryFieldAndFindsTheKeyByHash() {
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        Instant expiry = NOW.plusSeconds(3600);
        ApiKey key = ApiKey.issue(account.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName("Prod ✓"),
                Usd.ofMicros(12_500_000), LimitReset.WEEKLY, expiry, NOW);
        apiKeys.insert(key);

        ApiKey found = apiKeys.findByHash(key.hash()).orElseThrow();
        assertEquals(key.id(), found.id());
        assertEquals(account.id(), found.accountId());
        assertEquals(raw.label(), found.label());
        assertEquals("Prod ✓", found.name().value());
        assertFalse(found.disabled());
        assertEquals(Optional.of(new SpendLimit(Usd.ofMicros(12_500_000), LimitReset.WEEKLY)), found.limit());
        assertEquals(Optional.of(expiry), found.expiresAt());
        assertEquals(NOW, found.createdAt());
        assertEquals(NOW, found.updatedAt());
        assertEquals(Optional.empty(), found.deletedAt());
    }

    @Test
    public void unknownHashIsEmpty() {
        assertEquals(Optional.empty(), apiKeys.findByHash(newKey("x", NOW).hash()));
    }

    @Test
    public void updateWritesTheMutableState() {
        ApiKey key = newKey("before", NOW);
        apiKeys.insert(key);
        Instant later = NOW.plusSeconds(5);
        key.update(new ApiKeyChanges(FieldChange.set(new KeyName("after")), FieldChange.set(true),
                FieldChange.set(Usd.ofMicros(3)), FieldChange.set(LimitReset.DAILY),
                FieldChange.set(later.plusSeconds(60))), later);
        stores.transactions().inTransaction(() -> {
            apiKeys.lockByHash(key.hash()).orElseThrow();
            apiKeys.update(key);
            return null;
        });

        ApiKey found = apiKeys.findByHash(key.hash()).orElseThrow();
        assertEquals("after", found.name().value());
        assertTrue(found.disabled());
        assertEquals(Optional.of(new SpendLimit(Usd.ofMicros(3), LimitReset.DAILY)), found.limit());
        assertEquals(Optional.of(later.plusSeconds(60)), found.expiresAt());
        assertEquals(later, found.updatedAt());

        found.update(new ApiKeyChanges(FieldChange.keep(), FieldChange.keep(), FieldChange.clear(),
                FieldChange.keep(), FieldChange.clear()), later.plusSeconds(1));
        apiKeys.update(found);
        ApiKey cleared = apiKeys.findByHash(key.hash()).orElseThrow();
        assertEquals(Optional.empty(), cleared.limit());
        assertEquals(Optional.empty(), cleared.expiresAt());
    }

    @Test
    public void listsNewestFirstWithoutDeletedAndOptionallyWithoutDisabled() {
        ApiKey oldest = newKey("oldest", NOW);
        ApiKey disabled = newKey("disabled", NOW.plusMillis(1));
        ApiKey deleted = newKey("deleted", NOW.plusMillis(2));
        ApiKey sameMillisA = newKey("same-a", NOW.plusMillis(3));
        ApiKey sameMillisB = newKey("same-b", NOW.plusMillis(3));
        for (ApiKey k : List.of(oldest, disabled, deleted, sameMillisA, sameMillisB)) {
            apiKeys.insert(k);
        }
        disabled.update(new ApiKeyChanges(FieldChange.keep(), FieldChange.set(true), FieldChange.keep(),
                FieldChange.keep(), FieldChange.keep()), NOW.plusSeconds(1));
        apiKeys.update(disabled);
        deleted.delete(NOW.plusSeconds(1));
        apiKeys.update(deleted);

        assertEquals(List.of("same-b", "same-a", "oldest"), names(apiKeys.listPage(account.id(), false, 0, 100)));
        assertEquals(List.of("same-b", "same-a", "disabled", "oldest"),
                names(apiKeys.listPage(account.id(), true, 0, 100)));
        assertEquals(List.of("same-a", "disabled"), names(apiKeys.listPage(account.id(), true, 1, 2)));
        assertEquals(List.of(), apiKeys.listPage(account.id(), true, 10, 100));
        assertTrue(apiKeys.findByHash(deleted.hash()).orElseThrow().deletedAt().isPresent());
    }

    @Test
    public void listsOnlyTheAccountsOwnKeys() {
        apiKeys.insert(newKey("mine", NOW));
        Account other = stores.newAccount(NOW);
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        apiKeys.insert(ApiKey.issue(other.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName("theirs"),
                null, null, null, NOW));
        assertEquals(List.of("mine"), names(apiKeys.listPage(account.id(), true, 0, 100)));
        assertEquals(List.of("theirs"), names(apiKeys.listPage(other.id(), true, 0, 100)));
    }

    private static List<String> names(List<ApiKey> keys) {
        return keys.stream().map(k -> k.name().value()).toList();
    }
}
