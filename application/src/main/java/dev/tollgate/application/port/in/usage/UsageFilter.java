package dev.tollgate.application.port.in.usage;

import dev.tollgate.domain.shared.KeyHash;

/**
 * Which of the signed-in account's requests a usage question is about: all, one key's (by its hash, the key's
 * external id), one model's, or both. A key that is not the account's matches nothing.
 */
public record UsageFilter(KeyHash key, String model) {

    public static final UsageFilter ALL = new UsageFilter(null, null);

    public UsageFilter {
        if (model != null && model.isBlank()) {
            model = null;
        }
    }
}
