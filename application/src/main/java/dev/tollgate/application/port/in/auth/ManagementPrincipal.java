package dev.tollgate.application.port.in.auth;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementAccess;
import java.util.Objects;

/**
 * Who calls the control plane: an account acting through a management key of a given access mode, or the
 * operator acting for an account through the CLI (always read-write).
 */
public record ManagementPrincipal(AccountId accountId, ManagementAccess access) {

    public ManagementPrincipal {
        Objects.requireNonNull(accountId);
        Objects.requireNonNull(access);
    }

    public static ManagementPrincipal operator(AccountId accountId) {
        return new ManagementPrincipal(accountId, ManagementAccess.READ_WRITE);
    }

    /** §4.1 rule 7: read_only management keys may call only the GET routes. */
    public void requireWriteAccess() {
        if (!access.canWrite()) {
            throw new ReadOnlyManagementKeyException();
        }
    }
}
