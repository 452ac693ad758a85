package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.KeyName;

/** Use case: disable a management key (by name: operator CLI; by id: dashboard); it answers 401 from then on. */
public interface DisableManagementKeyUseCase {

    /** @throws ManagementKeyNotFoundException the account has no key of that name */
    void disable(Email email, KeyName name);

    /** @throws ManagementKeyNotFoundException the account has no such key (another account's key included) */
    void disable(AccountId owner, ManagementKeyId id);
}
