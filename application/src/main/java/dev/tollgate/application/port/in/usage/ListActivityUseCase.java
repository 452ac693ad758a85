package dev.tollgate.application.port.in.usage;

import dev.tollgate.domain.account.AccountId;

/** Use case: the activity table and its CSV export — the account's settled requests, newest first, filtered. */
public interface ListActivityUseCase {

    /** Most entries of one page. */
    int MAX_PAGE = 1_000;
    /** Deepest offset a page may start at (paging further back is what the CSV export is for). */
    int MAX_OFFSET = 100_000;

    ActivityPage activity(AccountId account, UsageFilter filter, int offset, int pageSize);
}
