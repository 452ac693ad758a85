package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.shared.KeyHash;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** In-memory fake of {@link SessionRepository}. */
public final class InMemorySessionRepository implements SessionRepository {

    private final Map<KeyHash, DashboardSession> sessions = new LinkedHashMap<>();

    @Override
    public synchronized void insert(DashboardSession session) {
        if (sessions.putIfAbsent(session.tokenHash(), copy(session, session.lastSeenAt())) != null) {
            throw new IllegalStateException("duplicate session token hash");
        }
    }

    @Override
    public synchronized Optional<DashboardSession> findByTokenHash(KeyHash tokenHash) {
        DashboardSession session = sessions.get(tokenHash);
        return session == null ? Optional.empty() : Optional.of(copy(session, session.lastSeenAt()));
    }

    @Override
    public synchronized void touch(KeyHash tokenHash, Instant lastSeenAt) {
        DashboardSession session = sessions.get(tokenHash);
        if (session != null && session.lastSeenAt().isBefore(lastSeenAt)) {
            sessions.put(tokenHash, copy(session, lastSeenAt));
        }
    }

    @Override
    public synchronized boolean delete(KeyHash tokenHash) {
        return sessions.remove(tokenHash) != null;
    }

    @Override
    public synchronized int deleteAll(AccountId accountId) {
        int before = sessions.size();
        sessions.values().removeIf(s -> s.accountId().equals(accountId));
        return before - sessions.size();
    }

    @Override
    public synchronized int deleteEnded(AccountId accountId, Instant idleBefore, Instant now) {
        int before = sessions.size();
        sessions.values().removeIf(s -> s.accountId().equals(accountId)
                && (!s.expiresAt().isAfter(now) || s.lastSeenAt().isBefore(idleBefore)));
        return before - sessions.size();
    }

    public synchronized int size() {
        return sessions.size();
    }

    private static DashboardSession copy(DashboardSession s, Instant lastSeenAt) {
        return DashboardSession.restore(s.tokenHash(), s.accountId(), s.csrfToken(), s.createdAt(), lastSeenAt,
                s.expiresAt());
    }
}
