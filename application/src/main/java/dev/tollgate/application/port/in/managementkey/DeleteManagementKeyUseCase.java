package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementKeyId;

/** Use case: delete a management key of the account; it can never authenticate again (dashboard). */
public interface DeleteManagementKeyUseCase {

    /** @throws ManagementKeyNotFoundException the account has no such key */
    void delete(AccountId owner, ManagementKeyId id);
}
