package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * Where one check stands for one request, as the store saw it in the same atomic step that decided the request.
 *
 * @param used       what the bucket counts, this request included when it was admitted
 * @param retryAfter zero when the check passes; else how long until it would pass
 * @param reset      how long until the bucket has its whole limit again (nothing counted any more)
 */
public record CheckState(QuotaCheck check, long used, Duration retryAfter, Duration reset) {

    public CheckState {
        Objects.requireNonNull(check);
        Objects.requireNonNull(retryAfter);
        Objects.requireNonNull(reset);
    }

    public boolean passed() {
        return retryAfter.isZero() || !check.blocking();
    }

    public long remaining() {
        return Math.max(0, check.limit() - used);
    }
}
