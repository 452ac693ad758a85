package dev.tollgate.application.port.in.usage;

import dev.tollgate.domain.account.AccountId;

/** Use case: the Usage page — balance, spend and tokens per day of the last {@code days} days, filtered. */
public interface ViewUsageUseCase {

    /** Longest period a report covers. */
    int MAX_DAYS = 366;

    UsageReport usage(AccountId account, UsageFilter filter, int days);
}
