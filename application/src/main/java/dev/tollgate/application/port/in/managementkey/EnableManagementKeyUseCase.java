package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementKeyId;

/** Use case: enable a disabled management key of the account again (dashboard). */
public interface EnableManagementKeyUseCase {

    /**
     * @throws ManagementKeyNotFoundException the account has no such key
     * @throws ManagementKeyLimitReachedException enabling it would make more than 25 active keys (§8.3)
     */
    void enable(AccountId owner, ManagementKeyId id);
}
