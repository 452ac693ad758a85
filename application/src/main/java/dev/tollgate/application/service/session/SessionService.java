package dev.tollgate.application.service.session;

import dev.tollgate.application.port.in.session.InvalidCredentialsException;
import dev.tollgate.application.port.in.session.LogInCommand;
import dev.tollgate.application.port.in.session.LogInUseCase;
import dev.tollgate.application.port.in.session.LogOutUseCase;
import dev.tollgate.application.port.in.session.ResolveSessionUseCase;
import dev.tollgate.application.port.in.session.SignedIn;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.application.port.out.PasswordHasher;
import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;
import dev.tollgate.domain.quota.AccessRules;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.session.SessionLifetime;
import dev.tollgate.domain.session.SessionToken;
import dev.tollgate.domain.shared.DomainRuleViolation;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Service: dashboard sign-in, sessions and sign-out. Every attempt is counted (per address and per source IP)
 * before anything is looked up, and every attempt runs one password verification — against a stand-in hash when
 * the address has no account or no password — so an unknown address and a wrong password take as long and answer
 * alike. A sign-in always starts a new session (ending the browser's previous one), never reuses one.
 */
public final class SessionService implements LogInUseCase, LogOutUseCase, ResolveSessionUseCase {

    private final AccountRepository accounts;
    private final CredentialRepository credentials;
    private final SessionRepository sessions;
    private final PasswordHasher hasher;
    private final TrafficGuard guard;
    private final AccessRules rules;
    private final SessionLifetime lifetime;
    private final RandomGenerator random;
    private final Clock clock;
    private final PasswordHash standIn;

    /** @param random a cryptographically strong generator (SecureRandom): it draws session and CSRF tokens */
    public SessionService(AccountRepository accounts, CredentialRepository credentials, SessionRepository sessions,
            PasswordHasher hasher, TrafficGuard guard, AccessRules rules, SessionLifetime lifetime,
            RandomGenerator random, Clock clock) {
        this.accounts = accounts;
        this.credentials = credentials;
        this.sessions = sessions;
        this.hasher = hasher;
        this.guard = guard;
        this.rules = rules;
        this.lifetime = lifetime;
        this.random = random;
        this.clock = clock;
        byte[] filler = new byte[24];
        random.nextBytes(filler);
        this.standIn = hasher.hash(Password.given(HexFormat.of().formatHex(filler)));
    }

    @Override
    public SignedIn logIn(LogInCommand command) {
        String typed = command.email() == null ? "" : command.email().strip().toLowerCase(Locale.ROOT);
        Optional<Email> email = parseEmail(typed);
        guard.admitAccess(rules.loginAttempt(Email.digestOf(typed), command.sourceIp()));

        Optional<Account> account = email.flatMap(accounts::findByEmail);
        Optional<PasswordHash> stored = account.flatMap(a -> credentials.findByAccount(a.id()));
        boolean matches = hasher.matches(Password.given(command.password()), stored.orElse(standIn));
        if (!matches || stored.isEmpty()) {
            throw new InvalidCredentialsException();
        }
        if (command.previousSessionToken() != null) {
            SessionToken.parse(command.previousSessionToken()).ifPresent(old -> sessions.delete(old.hash()));
        }
        Instant now = clock.instant();
        sessions.deleteEnded(account.get().id(), now.minus(lifetime.idle()), now);
        SessionToken token = SessionToken.generate(random);
        DashboardSession session = DashboardSession.start(token, account.get().id(), randomHex(32), lifetime, now);
        sessions.insert(session);
        return new SignedIn(token, session);
    }

    @Override
    public void logOut(String sessionToken) {
        SessionToken.parse(sessionToken).ifPresent(token -> sessions.delete(token.hash()));
    }

    @Override
    public Optional<DashboardSession> resolve(String sessionToken) {
        Optional<SessionToken> token = SessionToken.parse(sessionToken);
        if (token.isEmpty()) {
            return Optional.empty();
        }
        Optional<DashboardSession> found = sessions.findByTokenHash(token.get().hash());
        if (found.isEmpty()) {
            return Optional.empty();
        }
        DashboardSession session = found.get();
        Instant now = clock.instant();
        if (!session.isLive(lifetime, now)) {
            sessions.delete(session.tokenHash());
            return Optional.empty();
        }
        if (session.touch(now, lifetime)) {
            sessions.touch(session.tokenHash(), session.lastSeenAt());
        }
        return Optional.of(session);
    }

    public SessionLifetime lifetime() {
        return lifetime;
    }

    private String randomHex(int bytes) {
        byte[] value = new byte[bytes];
        random.nextBytes(value);
        return HexFormat.of().formatHex(value);
    }

    private static Optional<Email> parseEmail(String typed) {
        try {
            return Optional.of(new Email(typed));
        } catch (DomainRuleViolation e) {
            return Optional.empty();
        }
    }
}
