package dev.tollgate.application.port.in.auth;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementAccess;
import java.util.Objects;

/**
 * Who calls the control plane: an account acting through a management key of a given access mode, the account's
 * owner signed in to the dashboard, or the operator acting for an account through the CLI (both read-write).
 */
public record ManagementPrincipal(AccountId accountId, ManagementAccess access) {

    public ManagementPrincipal {
        Objects.requireNonNull(accountId);
        Objects.requireNonNull(access);
    }

    public static ManagementPrincipal operator(AccountId accountId) {
        return new ManagementPrincipal(accountId, ManagementAccess.READ_WRITE);
    }

    /**
     * The owner of a dashboard session, mapped like a management key (§1, §5.5): the key pages work for the
     * signed-in account only, read-write, and only once its e-mail is verified.
     *
     * @throws EmailNotVerifiedException the account has no verified e-mail
     */
    public static ManagementPrincipal signedIn(Account account) {
        if (!account.emailVerified()) {
            throw new EmailNotVerifiedException();
        }
        return new ManagementPrincipal(account.id(), ManagementAccess.READ_WRITE);
    }

    /** §4.1 rule 7: read_only management keys may call only the GET routes. */
    public void requireWriteAccess() {
        if (!access.canWrite()) {
            throw new ReadOnlyManagementKeyException();
        }
    }
}
