package dev.tollgate.domain.managementkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ManagementKeyTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");
    private static final AccountId ACCOUNT = new AccountId(UUID.fromString("00000000-0000-0000-0000-00000000000a"));
    private static final KeyHash HASH = new KeyHash("cd".repeat(32));

    private static ManagementKey issue(ManagementAccess access, Instant expiresAt) {
        return ManagementKey.issue(ACCOUNT, new KeyName("ops"), access, HASH, "gpm-...V9UV", expiresAt, NOW);
    }

    @Test
    void aNewKeyIsActiveAndKeepsWhatItWasGiven() {
        ManagementKey key = issue(ManagementAccess.READ_ONLY, null);
        assertEquals(ManagementKeyState.ACTIVE, key.state(NOW));
        assertEquals(ACCOUNT, key.accountId());
        assertEquals(new KeyName("ops"), key.name());
        assertEquals(ManagementAccess.READ_ONLY, key.access());
        assertEquals(HASH, key.hash());
        assertEquals("gpm-...V9UV", key.label());
        assertFalse(key.disabled());
        assertEquals(Optional.empty(), key.expiresAt());
        assertEquals(NOW, key.createdAt());
        assertEquals(NOW, key.updatedAt());
    }

    @Test
    void expiredExactlyAtExpiresAtAndNotBefore() {
        Instant expiry = NOW.plusSeconds(600);
        ManagementKey key = issue(ManagementAccess.READ_WRITE, expiry);
        assertEquals(ManagementKeyState.ACTIVE, key.state(expiry.minusMillis(1)));
        assertEquals(ManagementKeyState.EXPIRED, key.state(expiry));
        assertEquals(ManagementKeyState.EXPIRED, key.state(expiry.plusSeconds(1)));
    }

    @Test
    void expiresAtMustBeInTheFutureWhenIssued() {
        assertEquals("expires_at", assertThrows(DomainRuleViolation.class,
                () -> issue(ManagementAccess.READ_WRITE, NOW)).field());
        assertThrows(DomainRuleViolation.class, () -> issue(ManagementAccess.READ_WRITE, NOW.minusMillis(1)));
        assertEquals(Optional.of(NOW.plusMillis(1)), issue(ManagementAccess.READ_WRITE, NOW.plusMillis(1)).expiresAt());
    }

    @Test
    void timestampsAreTruncatedToMilliseconds() {
        ManagementKey key = ManagementKey.issue(ACCOUNT, new KeyName("ops"), ManagementAccess.READ_WRITE, HASH,
                "gpm-...V9UV", Instant.parse("2026-03-05T00:00:00.000999Z"),
                Instant.parse("2026-03-04T12:00:00.123999Z"));
        assertEquals(Instant.parse("2026-03-04T12:00:00.123Z"), key.createdAt());
        assertEquals(Optional.of(Instant.parse("2026-03-05T00:00:00Z")), key.expiresAt());
    }

    @Test
    void disableMakesItDisabledAndEnableMakesItActiveAgain() {
        ManagementKey key = issue(ManagementAccess.READ_WRITE, null);
        key.disable(NOW.plusSeconds(1));
        assertTrue(key.disabled());
        assertEquals(ManagementKeyState.DISABLED, key.state(NOW.plusSeconds(1)));
        assertEquals(NOW.plusSeconds(1), key.updatedAt());

        key.enable(NOW.plusSeconds(2));
        assertFalse(key.disabled());
        assertEquals(ManagementKeyState.ACTIVE, key.state(NOW.plusSeconds(2)));
        assertEquals(NOW.plusSeconds(2), key.updatedAt());
        assertEquals(NOW, key.createdAt());
    }

    @Test
    void aDisabledKeyStaysDisabledPastItsExpiry() {
        ManagementKey key = issue(ManagementAccess.READ_WRITE, NOW.plusSeconds(10));
        key.disable(NOW.plusSeconds(1));
        assertEquals(ManagementKeyState.DISABLED, key.state(NOW.plusSeconds(60)));
        key.enable(NOW.plusSeconds(61));
        assertEquals(ManagementKeyState.EXPIRED, key.state(NOW.plusSeconds(61)), "enabling does not undo expiry");
    }

    @Test
    void updatedAtStrictlyIncreasesWithinOneMillisecond() {
        ManagementKey key = issue(ManagementAccess.READ_WRITE, null);
        key.disable(NOW);
        key.enable(NOW);
        key.disable(NOW.plusNanos(1));
        assertEquals(NOW.plusMillis(3), key.updatedAt());
    }

    @Test
    void accessModes() {
        assertTrue(ManagementAccess.READ_WRITE.canWrite());
        assertFalse(ManagementAccess.READ_ONLY.canWrite());
        assertEquals("read_only", ManagementAccess.READ_ONLY.wireName());
        assertEquals("read_write", ManagementAccess.READ_WRITE.wireName());
        assertEquals(Optional.of(ManagementAccess.READ_ONLY), ManagementAccess.fromWireName("read_only"));
        assertEquals(Optional.of(ManagementAccess.READ_WRITE), ManagementAccess.fromWireName("read_write"));
        assertEquals(Optional.empty(), ManagementAccess.fromWireName("READ_WRITE"));
        assertEquals(Optional.empty(), ManagementAccess.fromWireName("admin"));
        assertEquals(Optional.empty(), ManagementAccess.fromWireName(null));
    }

    @Test
    void policyAllowsTwentyFiveActiveKeysForAVerifiedAccount() {
        assertEquals(25, ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT);
        assertTrue(ManagementKeyPolicy.roomForAnotherActiveKey(0));
        assertTrue(ManagementKeyPolicy.roomForAnotherActiveKey(24));
        assertFalse(ManagementKeyPolicy.roomForAnotherActiveKey(25));
        assertFalse(ManagementKeyPolicy.roomForAnotherActiveKey(26));
        assertTrue(ManagementKeyPolicy.accountMayIssue(Account.open(new Email("v@example.com"), true, NOW)));
        assertFalse(ManagementKeyPolicy.accountMayIssue(Account.open(new Email("u@example.com"), false, NOW)));
    }
}
