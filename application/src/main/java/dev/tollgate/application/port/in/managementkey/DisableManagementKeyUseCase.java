package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.KeyName;

/** Use case: disable a management key by name; it answers 401 from then on (operator CLI). */
public interface DisableManagementKeyUseCase {

    /** @throws ManagementKeyNotFoundException the account has no key of that name */
    void disable(Email email, KeyName name);
}
