package dev.tollgate.application.service.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.session.InvalidCredentialsException;
import dev.tollgate.application.port.in.session.LogInCommand;
import dev.tollgate.application.port.in.session.SignedIn;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.application.testing.FastPasswordHasher;
import dev.tollgate.application.testing.InMemoryQuotaCounter;
import dev.tollgate.application.testing.InMemorySessionRepository;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.application.testing.SecretScan;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.quota.AccessLimits;
import dev.tollgate.domain.quota.AccessRules;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.session.SessionLifetime;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SessionServiceTest {

    private static final Instant START = Instant.parse("2026-05-01T10:00:00Z");
    private static final String PASSWORD = "correct horse battery staple";
    private static final String IP = "203.0.113.9";

    private final MutableClock clock = new MutableClock(START);
    private final FastPasswordHasher hasher = new FastPasswordHasher();
    private final SessionLifetime lifetime = new SessionLifetime(Duration.ofHours(12), Duration.ofDays(7));
    private PersistenceStores stores;
    private InMemorySessionRepository sessions;
    private SessionService service;
    private Account account;

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        sessions = (InMemorySessionRepository) stores.sessions();
        TrafficGuard guard = new TrafficGuard(new TrafficRules(TrafficLimits.DEFAULTS), new InMemoryQuotaCounter(),
                clock, false);
        service = new SessionService(stores.accounts(), stores.credentials(), sessions, hasher, guard,
                new AccessRules(AccessLimits.DEFAULTS), lifetime, new SplittableRandom(3), clock);
        account = stores.newAccount(START);
        stores.credentials().save(account.id(), hasher.hash(Password.choose(PASSWORD, account.email())), START);
    }

    private SignedIn logIn(String email, String password) {
        return service.logIn(new LogInCommand(email, password, IP, null));
    }

    @Test
    void theRightPasswordStartsASessionKnownOnlyByTheHashOfItsToken() {
        SignedIn signedIn = logIn(account.email().value(), PASSWORD);
        assertEquals(account.id(), signedIn.session().accountId());
        assertEquals(64, signedIn.token().reveal().length());
        assertEquals(64, signedIn.session().csrfToken().length());
        assertNotEquals(signedIn.token().reveal(), signedIn.session().csrfToken());
        assertEquals(START.plus(Duration.ofDays(7)), signedIn.session().expiresAt());
        assertEquals(account.id(), service.resolve(signedIn.token().reveal()).orElseThrow().accountId());
        assertEquals(java.util.List.of(), SecretScan.find(sessions, signedIn.token().reveal()),
                "the store keeps no session token");
    }

    @Test
    void addressesAreMatchedWhateverTheirCaseAndSurroundingSpace() {
        SignedIn signedIn = logIn("  " + account.email().value().toUpperCase() + " ", PASSWORD);
        assertEquals(account.id(), signedIn.session().accountId());
    }

    @Test
    void unknownAddressWrongPasswordMissingPasswordAndMalformedAddressFailAlikeAfterOneVerificationEach() {
        Account withoutPassword = stores.newAccount(START);
        String[][] attempts = {
            {"nobody@example.test", PASSWORD},
            {account.email().value(), "wrong password!"},
            {withoutPassword.email().value(), PASSWORD},
            {"not an address", PASSWORD},
            {"", ""},
        };
        for (String[] attempt : attempts) {
            int before = hasher.verifications();
            InvalidCredentialsException refused = assertThrows(InvalidCredentialsException.class,
                    () -> logIn(attempt[0], attempt[1]));
            assertEquals("The e-mail address or password is not correct.", refused.getMessage());
            assertEquals(before + 1, hasher.verifications(), "every attempt verifies once: " + attempt[0]);
        }
        assertEquals(0, sessions.size());
    }

    @Test
    void aSignInEndsTheBrowsersPreviousSessionAndNeverReusesItsToken() {
        SignedIn first = logIn(account.email().value(), PASSWORD);
        SignedIn second = service.logIn(new LogInCommand(account.email().value(), PASSWORD, IP,
                first.token().reveal()));
        assertNotEquals(first.token().reveal(), second.token().reveal());
        assertEquals(Optional.empty(), service.resolve(first.token().reveal()));
        assertTrue(service.resolve(second.token().reveal()).isPresent());
    }

    @Test
    void logOutEndsTheSession() {
        SignedIn signedIn = logIn(account.email().value(), PASSWORD);
        service.logOut(signedIn.token().reveal());
        assertEquals(Optional.empty(), service.resolve(signedIn.token().reveal()));
        service.logOut("not-a-token");
        service.logOut(null);
    }

    @Test
    void aSessionEndsAfterTwelveIdleHours() {
        SignedIn signedIn = logIn(account.email().value(), PASSWORD);
        clock.advance(Duration.ofHours(11));
        assertTrue(service.resolve(signedIn.token().reveal()).isPresent(), "a request keeps it alive");
        clock.advance(Duration.ofHours(11));
        assertTrue(service.resolve(signedIn.token().reveal()).isPresent(), "12 h counted from the last request");
        clock.advance(Duration.ofHours(12));
        assertEquals(Optional.empty(), service.resolve(signedIn.token().reveal()));
        assertEquals(0, sessions.size(), "an ended session is removed");
    }

    @Test
    void aSessionEndsSevenDaysAfterSignInHoweverActive() {
        SignedIn signedIn = logIn(account.email().value(), PASSWORD);
        for (int hour = 0; hour < 7 * 24 - 1; hour += 6) {
            clock.advance(Duration.ofHours(6));
            if (clock.instant().isBefore(START.plus(Duration.ofDays(7)))) {
                assertTrue(service.resolve(signedIn.token().reveal()).isPresent(), "hour " + hour);
            }
        }
        clock.set(START.plus(Duration.ofDays(7)));
        assertEquals(Optional.empty(), service.resolve(signedIn.token().reveal()));
    }

    @Test
    void lastSeenIsWrittenAtMostOnceAMinute() {
        SignedIn signedIn = logIn(account.email().value(), PASSWORD);
        String token = signedIn.token().reveal();
        clock.advance(Duration.ofSeconds(30));
        service.resolve(token);
        assertEquals(START, stored(signedIn).lastSeenAt());
        clock.advance(Duration.ofSeconds(31));
        service.resolve(token);
        assertEquals(START.plusSeconds(61), stored(signedIn).lastSeenAt());
    }

    private DashboardSession stored(SignedIn signedIn) {
        return sessions.findByTokenHash(signedIn.token().hash()).orElseThrow();
    }

    @Test
    void malformedOrUnknownCookiesResolveToNothing() {
        for (String cookie : new String[] {null, "", "abc", "g".repeat(64), "0".repeat(64), "A".repeat(64)}) {
            assertEquals(Optional.empty(), service.resolve(cookie), String.valueOf(cookie));
        }
    }

    @Test
    void tenAttemptsPerAddressWithinFifteenMinutesThenRefusedEvenWithTheRightPassword() {
        for (int i = 0; i < 10; i++) {
            String ip = "198.51.100." + i;
            assertThrows(InvalidCredentialsException.class,
                    () -> service.logIn(new LogInCommand(account.email().value(), "wrong password!", ip, null)));
        }
        RateLimitExceededException limited = assertThrows(RateLimitExceededException.class,
                () -> service.logIn(new LogInCommand(account.email().value(), PASSWORD, "198.51.100.99", null)));
        assertEquals(LimitScope.LOGIN_EMAIL, limited.refusal().scope());
        assertTrue(limited.refusal().retryAfterSeconds() > 14 * 60, "the oldest attempt leaves after 15 minutes");
        clock.advance(Duration.ofMinutes(15));
        assertEquals(account.id(), logIn(account.email().value(), PASSWORD).session().accountId());
    }

    @Test
    void tenAttemptsPerSourceIpWhateverTheAddresses() {
        for (int i = 0; i < 10; i++) {
            int n = i;
            assertThrows(InvalidCredentialsException.class,
                    () -> logIn("guess-" + n + "@example.test", PASSWORD));
        }
        int before = hasher.verifications();
        RateLimitExceededException limited = assertThrows(RateLimitExceededException.class,
                () -> logIn(account.email().value(), PASSWORD));
        assertEquals(LimitScope.LOGIN_IP, limited.refusal().scope());
        assertEquals(before, hasher.verifications(), "a refused attempt verifies nothing");
        assertFalse(service.logIn(new LogInCommand(account.email().value(), PASSWORD, "192.0.2.1", null))
                .token().reveal().isEmpty(), "another source IP may still sign in");
    }

    @Test
    void unknownAddressesAreLimitedLikeKnownOnes() {
        for (int i = 0; i < 10; i++) {
            String ip = "198.51.100." + (100 + i);
            assertThrows(InvalidCredentialsException.class, () -> service.logIn(
                    new LogInCommand("nobody@example.test", PASSWORD, ip, null)));
        }
        assertThrows(RateLimitExceededException.class, () -> service.logIn(
                new LogInCommand("NOBODY@example.test ", PASSWORD, "192.0.2.200", null)));
    }
}
