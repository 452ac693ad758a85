package dev.tollgate.application.port.in.keys;

import dev.tollgate.domain.shared.DomainRuleViolation;

/** Query for one page of an account's regular keys, newest first (§4.1, §8.3). */
public record ListApiKeysQuery(int offset, boolean includeDisabled) {

    /** §8.3: maximum {@code offset} on list. */
    public static final int MAX_OFFSET = 10_000;
    /** §8.3: keys returned per list call. */
    public static final int PAGE_SIZE = 100;

    public ListApiKeysQuery {
        if (offset < 0 || offset > MAX_OFFSET) {
            throw new DomainRuleViolation("offset", "offset must be an integer from 0 to " + MAX_OFFSET);
        }
    }
}
