package dev.tollgate.application.port.in.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A dashboard session's owner acts like a read-write management key of its account, once verified (§1, §5.5). */
class ManagementPrincipalTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

    @Test
    void aVerifiedSignedInAccountIsAReadWritePrincipalOfItself() {
        Account account = Account.open(new Email("owner@example.test"), true, NOW);
        ManagementPrincipal principal = ManagementPrincipal.signedIn(account);
        assertEquals(account.id(), principal.accountId());
        assertEquals(ManagementAccess.READ_WRITE, principal.access());
        principal.requireWriteAccess();
    }

    @Test
    void anUnverifiedAccountIsRefusedLikeItsManagementKeys() {
        Account account = Account.open(new Email("owner@example.test"), false, NOW);
        assertThrows(EmailNotVerifiedException.class, () -> ManagementPrincipal.signedIn(account));
    }
}
