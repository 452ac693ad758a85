package dev.tollgate.application.port.in.usage;

import dev.tollgate.domain.account.AccountId;

/** Use case: the Balance page — the ledger of credits and spend of the last {@code days} days. */
public interface ViewBalanceUseCase {

    BalanceStatement statement(AccountId account, int days);
}
