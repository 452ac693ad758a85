package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.session.SessionLifetime;
import dev.tollgate.domain.session.SessionToken;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link SessionRepository}: every implementation passes these. */
public abstract class AbstractSessionRepositoryContractTest {

    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.089Z");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final SessionLifetime LIFETIME = new SessionLifetime(Duration.ofHours(1), Duration.ofDays(1));
    private PersistenceStores stores;
    private SessionRepository sessions;
    private Account account;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        sessions = stores.sessions();
        account = stores.newAccount(NOW);
    }

    private DashboardSession start(SessionToken token, Instant at) {
        byte[] csrf = new byte[32];
        RANDOM.nextBytes(csrf);
        DashboardSession session = DashboardSession.start(token, account.id(), HexFormat.of().formatHex(csrf),
                LIFETIME, at);
        sessions.insert(session);
        return session;
    }

    @Test
    public void findsASessionByTheHashOfItsTokenOnly() {
        SessionToken token = SessionToken.generate(RANDOM);
        DashboardSession started = start(token, NOW);
        DashboardSession found = sessions.findByTokenHash(token.hash()).orElseThrow();
        assertEquals(account.id(), found.accountId());
        assertEquals(started.csrfToken(), found.csrfToken());
        assertEquals(NOW, found.createdAt());
        assertEquals(NOW, found.lastSeenAt());
        assertEquals(NOW.plus(Duration.ofDays(1)), found.expiresAt());
        assertEquals(Optional.empty(), sessions.findByTokenHash(SessionToken.generate(RANDOM).hash()));
    }

    @Test
    public void touchMovesLastSeenForwardOnly() {
        SessionToken token = SessionToken.generate(RANDOM);
        start(token, NOW);
        sessions.touch(token.hash(), NOW.plusSeconds(120));
        sessions.touch(token.hash(), NOW.plusSeconds(60));
        assertEquals(NOW.plusSeconds(120), sessions.findByTokenHash(token.hash()).orElseThrow().lastSeenAt());
    }

    @Test
    public void deleteEndsOneSession() {
        SessionToken one = SessionToken.generate(RANDOM);
        SessionToken two = SessionToken.generate(RANDOM);
        start(one, NOW);
        start(two, NOW);
        assertTrue(sessions.delete(one.hash()));
        assertFalse(sessions.delete(one.hash()));
        assertEquals(Optional.empty(), sessions.findByTokenHash(one.hash()));
        assertTrue(sessions.findByTokenHash(two.hash()).isPresent());
    }

    @Test
    public void deleteAllEndsEverySessionOfTheAccountOnly() {
        SessionToken one = SessionToken.generate(RANDOM);
        SessionToken two = SessionToken.generate(RANDOM);
        start(one, NOW);
        start(two, NOW);
        Account other = stores.newAccount(NOW);
        SessionToken others = SessionToken.generate(RANDOM);
        sessions.insert(DashboardSession.start(others, other.id(), "0".repeat(64), LIFETIME, NOW));

        assertEquals(2, sessions.deleteAll(account.id()));
        assertFalse(sessions.findByTokenHash(one.hash()).isPresent());
        assertFalse(sessions.findByTokenHash(two.hash()).isPresent());
        assertTrue(sessions.findByTokenHash(others.hash()).isPresent(), "another account's sessions stay");
        assertEquals(0, sessions.deleteAll(account.id()));
    }

    @Test
    public void deleteEndedRemovesIdleAndExpiredSessionsOfTheAccountOnly() {
        SessionToken idle = SessionToken.generate(RANDOM);
        SessionToken expired = SessionToken.generate(RANDOM);
        SessionToken live = SessionToken.generate(RANDOM);
        start(idle, NOW);
        start(expired, NOW.minus(Duration.ofDays(2)));
        start(live, NOW);
        sessions.touch(live.hash(), NOW.plus(Duration.ofMinutes(50)));
        Account other = stores.newAccount(NOW);
        SessionToken othersIdle = SessionToken.generate(RANDOM);
        sessions.insert(DashboardSession.start(othersIdle, other.id(), "0".repeat(64), LIFETIME, NOW));

        Instant later = NOW.plus(Duration.ofMinutes(61));
        assertEquals(2, sessions.deleteEnded(account.id(), later.minus(LIFETIME.idle()), later));
        assertTrue(sessions.findByTokenHash(live.hash()).isPresent());
        assertFalse(sessions.findByTokenHash(idle.hash()).isPresent());
        assertFalse(sessions.findByTokenHash(expired.hash()).isPresent());
        assertTrue(sessions.findByTokenHash(othersIdle.hash()).isPresent(), "another account's sessions stay");
    }
}
