package dev.tollgate.domain.shared;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Rules for a key's {@code expires_at} (§4.1 rule 4). */
public final class Expiry {

    private Expiry() {
    }

    /** §4.1 rule 4: an expiration must lie in the future when it is set. */
    public static Instant requireFuture(Instant expiresAt, Instant now) {
        if (!expiresAt.isAfter(now)) {
            throw new DomainRuleViolation("expires_at", "expires_at must be in the future (now is "
                    + now.truncatedTo(ChronoUnit.MILLIS) + ")");
        }
        return expiresAt;
    }

    public static boolean isExpired(Instant expiresAt, Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }
}
