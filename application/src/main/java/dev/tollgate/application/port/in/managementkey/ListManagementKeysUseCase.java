package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.AccountId;

/** Use case: the account's management keys with their states, for the dashboard's settings page. */
public interface ListManagementKeysUseCase {

    ManagementKeyOverview list(AccountId accountId);
}
