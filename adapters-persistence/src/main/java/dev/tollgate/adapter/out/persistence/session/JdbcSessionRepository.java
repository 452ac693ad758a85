package dev.tollgate.adapter.out.persistence.session;

import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.shared.KeyHash;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Optional;

/** Persistence adapter: {@link SessionRepository} on PostgreSQL. */
@Singleton
public class JdbcSessionRepository implements SessionRepository {

    private final SessionRowRepository rows;

    JdbcSessionRepository(SessionRowRepository rows) {
        this.rows = rows;
    }

    @Override
    public void insert(DashboardSession session) {
        rows.insert(session.tokenHash().hex(), session.accountId().value(), session.csrfToken(),
                session.createdAt(), session.lastSeenAt(), session.expiresAt());
    }

    @Override
    public Optional<DashboardSession> findByTokenHash(KeyHash tokenHash) {
        return rows.findByTokenHash(tokenHash.hex()).map(row -> DashboardSession.restore(new KeyHash(row.tokenHash()),
                new AccountId(row.accountId()), row.csrfToken(), row.createdAt(), row.lastSeenAt(), row.expiresAt()));
    }

    @Override
    public void touch(KeyHash tokenHash, Instant lastSeenAt) {
        rows.touch(tokenHash.hex(), lastSeenAt);
    }

    @Override
    public boolean delete(KeyHash tokenHash) {
        return rows.deleteByTokenHash(tokenHash.hex()) == 1;
    }

    @Override
    public int deleteAll(AccountId accountId) {
        return (int) rows.deleteByAccountId(accountId.value());
    }

    @Override
    public int deleteEnded(AccountId accountId, Instant idleBefore, Instant now) {
        return (int) rows.deleteEnded(accountId.value(), idleBefore, now);
    }
}
