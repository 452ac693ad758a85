package dev.tollgate.domain.managementkey;

import dev.tollgate.domain.account.Account;

/** Rules for issuing management keys (§1, §8.3). */
public final class ManagementKeyPolicy {

    /** §8.3: active management keys per account. */
    public static final int MAX_ACTIVE_PER_ACCOUNT = 25;

    private ManagementKeyPolicy() {
    }

    /** §1: the account needs a verified e-mail to create management keys. */
    public static boolean accountMayIssue(Account account) {
        return account.emailVerified();
    }

    /** §1, §8.3: at most 25 active management keys exist per account. */
    public static boolean roomForAnotherActiveKey(long activeKeys) {
        return activeKeys < MAX_ACTIVE_PER_ACCOUNT;
    }
}
