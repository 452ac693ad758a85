package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link ManagementKeyRepository}: every implementation passes these. */
public abstract class AbstractManagementKeyRepositoryContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.089Z");
    private static final SecureRandom RANDOM = new SecureRandom();
    private PersistenceStores stores;
    private ManagementKeyRepository keys;
    private Account account;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        keys = stores.managementKeys();
        account = stores.newAccount(NOW);
    }

    private ManagementKey newKey(String name, ManagementAccess access, Instant expiresAt) {
        RawKey raw = RawKey.generate(KeyKind.MANAGEMENT, RANDOM);
        return ManagementKey.issue(account.id(), new KeyName(name), access, KeyHasher.sha256().hash(raw),
                raw.label(), expiresAt, NOW);
    }

    @Test
    public void storesAndFindsByHashAndName() {
        ManagementKey key = newKey("ops", ManagementAccess.READ_ONLY, NOW.plusSeconds(60));
        assertTrue(keys.insert(key));
        ManagementKey found = keys.findByHash(key.hash()).orElseThrow();
        assertEquals(key.id(), found.id());
        assertEquals(account.id(), found.accountId());
        assertEquals(ManagementAccess.READ_ONLY, found.access());
        assertEquals(key.label(), found.label());
        assertEquals(Optional.of(NOW.plusSeconds(60)), found.expiresAt());
        assertEquals(NOW, found.createdAt());
        assertEquals(key.id(), keys.findByName(account.id(), new KeyName("ops")).orElseThrow().id());
        assertEquals(Optional.empty(), keys.findByName(account.id(), new KeyName("nope")));
    }

    @Test
    public void namesAreUniquePerAccount() {
        assertTrue(keys.insert(newKey("same", ManagementAccess.READ_WRITE, null)));
        assertFalse(keys.insert(newKey("same", ManagementAccess.READ_ONLY, null)));
    }

    @Test
    public void findsByIdAndDeletesForGood() {
        ManagementKey key = newKey("doomed", ManagementAccess.READ_WRITE, null);
        keys.insert(key);
        assertEquals(key.hash(), keys.findById(key.id()).orElseThrow().hash());
        assertTrue(keys.delete(key.id()));
        assertFalse(keys.delete(key.id()));
        assertEquals(Optional.empty(), keys.findById(key.id()));
        assertEquals(Optional.empty(), keys.findByHash(key.hash()), "a deleted key's hash finds nothing");
        assertEquals(List.of(), keys.listByAccount(account.id()));
        assertTrue(keys.insert(newKey("doomed", ManagementAccess.READ_WRITE, null)), "its name is free again");
    }

    @Test
    public void recordsUseAtMostOncePerMinute() {
        ManagementKey key = newKey("used", ManagementAccess.READ_WRITE, null);
        keys.insert(key);
        assertEquals(Optional.empty(), keys.findById(key.id()).orElseThrow().lastUsedAt());
        keys.recordUse(key.id(), NOW.plusSeconds(10));
        assertEquals(Optional.of(NOW.plusSeconds(10)), keys.findById(key.id()).orElseThrow().lastUsedAt());
        keys.recordUse(key.id(), NOW.plusSeconds(40));
        assertEquals(Optional.of(NOW.plusSeconds(10)), keys.findById(key.id()).orElseThrow().lastUsedAt(),
                "within the minute nothing is written");
        keys.recordUse(key.id(), NOW.plusSeconds(70));
        assertEquals(Optional.of(NOW.plusSeconds(70)), keys.findById(key.id()).orElseThrow().lastUsedAt());
        ManagementKey disabled = keys.findById(key.id()).orElseThrow();
        disabled.disable(NOW.plusSeconds(80));
        keys.update(disabled);
        assertEquals(Optional.of(NOW.plusSeconds(70)), keys.findById(key.id()).orElseThrow().lastUsedAt(),
                "an update of the state keeps the last use");
    }

    @Test
    public void countsOnlyActiveKeys() {
        ManagementKey active = newKey("active", ManagementAccess.READ_WRITE, null);
        ManagementKey disabled = newKey("disabled", ManagementAccess.READ_WRITE, null);
        ManagementKey expiring = newKey("expiring", ManagementAccess.READ_WRITE, NOW.plusSeconds(10));
        keys.insert(active);
        keys.insert(disabled);
        keys.insert(expiring);
        disabled.disable(NOW.plusSeconds(1));
        keys.update(disabled);

        assertEquals(2, keys.countActive(account.id(), NOW.plusSeconds(9)));
        assertEquals(1, keys.countActive(account.id(), NOW.plusSeconds(10)));
        assertEquals(ManagementKeyState.DISABLED,
                keys.findByHash(disabled.hash()).orElseThrow().state(NOW.plusSeconds(2)));
        assertEquals(List.of("expiring", "disabled", "active"),
                keys.listByAccount(account.id()).stream().map(k -> k.name().value()).toList());
    }
}
