package dev.tollgate.domain.session;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Timestamps;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Entity: a signed-in browser. Known by the hash of its token; carries the synchronizer token that every
 * state-changing form of the session must send back (CSRF), and its lifetimes: it ends {@code idle} after its last
 * request and {@code absolute} after the log-in, whichever comes first.
 */
public final class DashboardSession {

    /**
     * The last-seen time is written at most this often (a request a second must not mean a write a second), or a
     * quarter of the idle lifetime when that is shorter: a session in use must never look idle.
     */
    public static final Duration TOUCH_INTERVAL = Duration.ofMinutes(1);

    private final KeyHash tokenHash;
    private final AccountId accountId;
    private final String csrfToken;
    private final Instant createdAt;
    private final Instant expiresAt;
    private Instant lastSeenAt;

    private DashboardSession(KeyHash tokenHash, AccountId accountId, String csrfToken, Instant createdAt,
            Instant lastSeenAt, Instant expiresAt) {
        this.tokenHash = Objects.requireNonNull(tokenHash);
        this.accountId = Objects.requireNonNull(accountId);
        this.csrfToken = Objects.requireNonNull(csrfToken);
        this.createdAt = Objects.requireNonNull(createdAt);
        this.lastSeenAt = Objects.requireNonNull(lastSeenAt);
        this.expiresAt = Objects.requireNonNull(expiresAt);
    }

    public static DashboardSession start(SessionToken token, AccountId accountId, String csrfToken,
            SessionLifetime lifetime, Instant now) {
        Instant created = Timestamps.millis(now);
        return new DashboardSession(token.hash(), accountId, csrfToken, created, created,
                created.plus(lifetime.absolute()));
    }

    public static DashboardSession restore(KeyHash tokenHash, AccountId accountId, String csrfToken,
            Instant createdAt, Instant lastSeenAt, Instant expiresAt) {
        return new DashboardSession(tokenHash, accountId, csrfToken, createdAt, lastSeenAt, expiresAt);
    }

    /**
     * Whether the session still signs its browser in at {@code now}: before its stored expiry, and within the
     * lifetimes configured now — an operator who shortens the absolute lifetime (after an incident, say) ends the
     * older sessions too, not only the ones started afterwards.
     */
    public boolean isLive(SessionLifetime lifetime, Instant now) {
        return now.isBefore(expiresAt) && now.isBefore(createdAt.plus(lifetime.absolute()))
                && now.isBefore(lastSeenAt.plus(lifetime.idle()));
    }

    /** Notes a request at {@code now}; {@code true} when the new last-seen time is worth writing. */
    public boolean touch(Instant now, SessionLifetime lifetime) {
        Duration quarter = lifetime.idle().dividedBy(4);
        if (now.isBefore(lastSeenAt.plus(quarter.compareTo(TOUCH_INTERVAL) < 0 ? quarter : TOUCH_INTERVAL))) {
            return false;
        }
        lastSeenAt = Timestamps.millis(now);
        return true;
    }

    public KeyHash tokenHash() {
        return tokenHash;
    }

    public AccountId accountId() {
        return accountId;
    }

    public String csrfToken() {
        return csrfToken;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant lastSeenAt() {
        return lastSeenAt;
    }

    public Instant expiresAt() {
        return expiresAt;
    }
}
