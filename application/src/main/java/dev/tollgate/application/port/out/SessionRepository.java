package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.shared.KeyHash;
import java.time.Instant;
import java.util.Optional;

/** Out port: dashboard sessions, known only by the hash of their token. */
public interface SessionRepository {

    void insert(DashboardSession session);

    Optional<DashboardSession> findByTokenHash(KeyHash tokenHash);

    /** Writes a session's last-seen time (idle expiry). */
    void touch(KeyHash tokenHash, Instant lastSeenAt);

    /** Ends a session; {@code false} when there was none. */
    boolean delete(KeyHash tokenHash);

    /** Ends every session of the account; how many there were. */
    int deleteAll(AccountId accountId);

    /** Removes the account's sessions that ended: past their absolute expiry, or last seen before {@code idleBefore}. */
    int deleteEnded(AccountId accountId, Instant idleBefore, Instant now);
}
