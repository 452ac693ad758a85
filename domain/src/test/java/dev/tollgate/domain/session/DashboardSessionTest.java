package dev.tollgate.domain.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.AccountId;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DashboardSessionTest {

    private static final Instant NOW = Instant.parse("2026-06-01T10:00:00Z");
    private final SessionLifetime lifetime = new SessionLifetime(Duration.ofHours(12), Duration.ofDays(7));

    @Test
    void tokensAre256RandomBitsAndOnlyTheirHashIsKept() {
        SecureRandom random = new SecureRandom();
        SessionToken one = SessionToken.generate(random);
        SessionToken two = SessionToken.generate(random);
        assertEquals(64, one.reveal().length());
        assertNotEquals(one.reveal(), two.reveal());
        assertNotEquals(one.reveal(), one.hash().hex());
        assertEquals(one.hash(), SessionToken.parse(one.reveal()).orElseThrow().hash());
        assertEquals(Optional.empty(), SessionToken.parse("ABC"));
        assertFalse(one.toString().contains(one.reveal()));
    }

    @Test
    void livesTwelveIdleHoursAndSevenDaysAtMost() {
        DashboardSession session = DashboardSession.start(SessionToken.generate(new SecureRandom()), AccountId.newId(),
                "0".repeat(64), lifetime, NOW);
        assertTrue(session.isLive(lifetime, NOW.plus(Duration.ofHours(12)).minusMillis(1)));
        assertFalse(session.isLive(lifetime, NOW.plus(Duration.ofHours(12))));
        assertTrue(session.touch(NOW.plus(Duration.ofHours(11)), lifetime));
        assertFalse(session.touch(NOW.plus(Duration.ofHours(11)).plusSeconds(59), lifetime), "at most once a minute");
        assertTrue(session.isLive(lifetime, NOW.plus(Duration.ofHours(22))));
        assertFalse(session.isLive(lifetime, NOW.plus(Duration.ofDays(7))));
        assertThrows(IllegalArgumentException.class,
                () -> new SessionLifetime(Duration.ofDays(8), Duration.ofDays(7)));
    }

    @Test
    void aSessionInUseUnderAShortIdleLifetimeNeverLooksIdle() {
        SessionLifetime brief = new SessionLifetime(Duration.ofSeconds(30), Duration.ofHours(1));
        DashboardSession session = DashboardSession.start(SessionToken.generate(new SecureRandom()), AccountId.newId(),
                "0".repeat(64), brief, NOW);
        for (int s = 10; s <= 120; s += 10) { // a request every 10 s for two minutes
            Instant at = NOW.plusSeconds(s);
            assertTrue(session.isLive(brief, at), "in use at " + s + " s");
            session.touch(at, brief);
        }
        assertFalse(session.isLive(brief, NOW.plusSeconds(120 + 30)), "30 s after the last request");
    }

    @Test
    void aShortenedAbsoluteLifetimeEndsSessionsStartedUnderTheLongerOne() {
        DashboardSession session = DashboardSession.start(SessionToken.generate(new SecureRandom()), AccountId.newId(),
                "0".repeat(64), lifetime, NOW);
        SessionLifetime shortened = new SessionLifetime(Duration.ofMinutes(90), Duration.ofHours(4));
        session.touch(NOW.plus(Duration.ofHours(3)), lifetime);
        assertTrue(session.isLive(shortened, NOW.plus(Duration.ofHours(4)).minusMillis(1)));
        assertFalse(session.isLive(shortened, NOW.plus(Duration.ofHours(4))), "4 h after sign-in, not 7 days");
        assertTrue(session.isLive(lifetime, NOW.plus(Duration.ofHours(4))), "under the lifetime it started with");
    }
}
