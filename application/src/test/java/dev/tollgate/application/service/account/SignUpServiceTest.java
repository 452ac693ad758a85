package dev.tollgate.application.service.account;

import dev.tollgate.application.port.in.account.AccountNotFoundException;

import dev.tollgate.application.port.in.account.SignUpPendingException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.MailUnavailableException;
import dev.tollgate.application.port.in.account.SignUpCommand;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.application.testing.FastPasswordHasher;
import dev.tollgate.application.testing.InMemoryQuotaCounter;
import dev.tollgate.application.testing.InMemoryCreditLedger;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.application.testing.RecordingMailer;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.account.EmailVerificationToken;
import dev.tollgate.domain.account.PasswordHash;
import dev.tollgate.domain.quota.AccessLimits;
import dev.tollgate.domain.quota.AccessRules;
import dev.tollgate.domain.quota.LimitScope;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.session.SessionLifetime;
import dev.tollgate.domain.session.SessionToken;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.SigningKey;
import dev.tollgate.domain.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SignUpServiceTest {

    private static final Instant START = Instant.parse("2026-05-01T10:00:00Z");
    private static final SigningKey KEY = SigningKey.of("a test secret of thirty-two chars!!");
    private static final String PASSWORD = "correct horse battery staple";
    private static final String IP = "203.0.113.9";

    private final MutableClock clock = new MutableClock(START);
    private final FastPasswordHasher hasher = new FastPasswordHasher();
    private final RecordingMailer mailer = new RecordingMailer();
    private PersistenceStores stores;
    private SignUpService service;

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        AccountService accounts = new AccountService(stores.accounts(), new InMemoryCreditLedger(), stores.transactions(), clock);
        TrafficGuard guard = new TrafficGuard(new TrafficRules(TrafficLimits.DEFAULTS), new InMemoryQuotaCounter(),
                clock, true);
        service = new SignUpService(stores.accounts(), stores.credentials(), stores.sessions(), hasher,
                stores.transactions(), mailer,
                new VerificationMails("https://gw.example.com/", KEY, Duration.ofHours(24)), accounts, guard,
                new AccessRules(AccessLimits.DEFAULTS), clock);
    }

    private static Email email(String value) {
        return new Email(value);
    }

    private String tokenOf(MailMessage mail) {
        assertTrue(mail.link().startsWith("https://gw.example.com/verify?token="), mail.link());
        assertTrue(mail.text().contains(mail.link()));
        return mail.link().substring(mail.link().indexOf("token=") + 6);
    }

    @Test
    void aNewAddressGetsAnUnverifiedAccountWithAPasswordHashAndAVerificationLink() {
        service.signUp(new SignUpCommand(email("New@Example.com"), PASSWORD, IP));
        Account account = stores.accounts().findByEmail(email("new@example.com")).orElseThrow();
        assertFalse(account.emailVerified());
        PasswordHash stored = stores.credentials().findByAccount(account.id()).orElseThrow();
        assertFalse(stored.encoded().contains(PASSWORD), "only a hash is kept");
        MailMessage mail = mailer.last();
        assertEquals(account.email(), mail.to());
        assertFalse(mail.text().contains(PASSWORD));
        assertTrue(EmailVerificationToken.parse(tokenOf(mail)).isPresent());
    }

    @Test
    void aRegisteredAddressGetsANoticeAndNothingChangesButTheAnswerIsTheSame() {
        service.signUp(new SignUpCommand(email("owner@example.com"), PASSWORD, IP));
        Account account = stores.accounts().findByEmail(email("owner@example.com")).orElseThrow();
        PasswordHash original = stores.credentials().findByAccount(account.id()).orElseThrow();
        assertTrue(service.verify(tokenOf(mailer.last()), PASSWORD, IP));

        service.signUp(new SignUpCommand(email("owner@example.com"), "an attacker's password", "198.51.100.7"));

        assertEquals(original, stores.credentials().findByAccount(account.id()).orElseThrow(),
                "the password is not replaced");
        MailMessage notice = mailer.last();
        assertEquals(account.email(), notice.to());
        assertEquals("Someone tried to sign up with your address", notice.subject());
        assertFalse(notice.link().contains("token="), "a notice carries no verification link");
        assertEquals(2, mailer.sent().size());
    }

    @Test
    void anUnconfirmedAddressSignedUpAgainTakesTheNewPasswordEndsItsSessionsAndGetsANewLink() {
        service.signUp(new SignUpCommand(email("pending@example.com"), "someone else's password", "198.51.100.7"));
        Account account = stores.accounts().findByEmail(email("pending@example.com")).orElseThrow();
        String firstLink = tokenOf(mailer.last());
        stores.sessions().insert(DashboardSession.start(SessionToken.generate(new SecureRandom()),
                account.id(), "0".repeat(64), new SessionLifetime(Duration.ofHours(1), Duration.ofDays(1)),
                clock.instant()));

        service.signUp(new SignUpCommand(email("pending@example.com"), PASSWORD, IP));

        assertEquals(0, stores.sessions().deleteAll(account.id()), "the earlier sign-up's session ended");
        assertEquals(2, mailer.sent().size());
        String secondLink = tokenOf(mailer.last());
        assertFalse(service.verify(firstLink, "someone else's password", IP), "the replaced password confirms nothing");
        assertFalse(service.verify(secondLink, "someone else's password", IP));
        assertFalse(stores.accounts().findByEmail(email("pending@example.com")).orElseThrow().emailVerified());
        assertTrue(service.verify(secondLink, PASSWORD, IP));
        assertTrue(stores.accounts().findByEmail(email("pending@example.com")).orElseThrow().emailVerified());
    }

    /** An audit: a sign-up set a password on an unverified CLI account, which the operator's verify then handed on. */
    @Test
    void anAccountTheOperatorMadeGetsANoticeAndNoPasswordFromASignUp() {
        Account cli = stores.accounts().insert(Account.open(email("cli@example.com"), false, clock.instant()))
                ? stores.accounts().findByEmail(email("cli@example.com")).orElseThrow() : null;
        service.signUp(new SignUpCommand(email("cli@example.com"), "an attacker's password", "198.51.100.7"));
        assertTrue(stores.credentials().findByAccount(cli.id()).isEmpty(), "no password was set");
        assertEquals("Someone tried to sign up with your address", mailer.last().subject());
        service.confirm(email("cli@example.com"), false);
        assertTrue(stores.accounts().findByEmail(email("cli@example.com")).orElseThrow().emailVerified());
        assertTrue(stores.credentials().findByAccount(cli.id()).isEmpty());
    }

    @Test
    void theOperatorCannotConfirmASignUpWaitingForItsLinkUnlessItIsDiscarded() {
        service.signUp(new SignUpCommand(email("pending@example.com"), "whoever's password", "198.51.100.7"));
        Account account = stores.accounts().findByEmail(email("pending@example.com")).orElseThrow();
        stores.sessions().insert(DashboardSession.start(SessionToken.generate(new SecureRandom()),
                account.id(), "0".repeat(64), new SessionLifetime(Duration.ofHours(1), Duration.ofDays(1)),
                clock.instant()));
        SignUpPendingException refused = assertThrows(SignUpPendingException.class,
                () -> service.confirm(email("pending@example.com"), false));
        assertTrue(refused.getMessage().contains("--discard-signup"), refused.getMessage());
        assertFalse(stores.accounts().findByEmail(email("pending@example.com")).orElseThrow().emailVerified());
        assertTrue(stores.credentials().findByAccount(account.id()).isPresent(), "refused: nothing changed");

        service.confirm(email("pending@example.com"), true);
        assertTrue(stores.accounts().findByEmail(email("pending@example.com")).orElseThrow().emailVerified());
        assertTrue(stores.credentials().findByAccount(account.id()).isEmpty(), "the sign-up's password is gone");
        assertEquals(0, stores.sessions().deleteAll(account.id()), "and its sessions");
        assertThrows(AccountNotFoundException.class, () -> service.confirm(email("nobody@example.com"), false));
    }

    @Test
    void passwordRulesAreCheckedBeforeAnythingIsStoredOrSent() {
        assertRefused("owner@example.com", "short");
        assertRefused("owner@example.com", "x".repeat(257));
        assertRefused("owner@example.com", "OWNER@example.com");
        assertRefused("owner@example.com", "           ");
        assertEquals(Optional.empty(), stores.accounts().findByEmail(email("owner@example.com")));
        assertEquals(0, mailer.sent().size());
        service.signUp(new SignUpCommand(email("owner@example.com"), "x".repeat(10), IP));
        service.signUp(new SignUpCommand(email("other@example.com"), "é".repeat(256), IP));
    }

    private void assertRefused(String address, String password) {
        DomainRuleViolation refused = assertThrows(DomainRuleViolation.class,
                () -> service.signUp(new SignUpCommand(email(address), password, IP)));
        assertEquals("password", refused.field());
    }

    @Test
    void theLinkVerifiesTheAccountOnceOrMoreWithin24Hours() {
        service.signUp(new SignUpCommand(email("v@example.com"), PASSWORD, IP));
        String token = tokenOf(mailer.last());
        clock.advance(Duration.ofHours(23));
        assertTrue(service.verify(token, PASSWORD, IP));
        assertTrue(stores.accounts().findByEmail(email("v@example.com")).orElseThrow().emailVerified());
        assertTrue(service.verify(token, PASSWORD, IP), "opening it again is harmless");
    }

    @Test
    void anExpiredTamperedForeignOrMalformedLinkVerifiesNothing() {
        service.signUp(new SignUpCommand(email("v@example.com"), PASSWORD, IP));
        String token = tokenOf(mailer.last());
        EmailVerificationToken parsed = EmailVerificationToken.parse(token).orElseThrow();
        String otherKey = EmailVerificationToken.sign(parsed.accountId(), email("v@example.com"),
                parsed.expiresAt(), SigningKey.of("another secret of thirty-two chars!")).text();
        String otherAddress = EmailVerificationToken.sign(parsed.accountId(), email("w@example.com"),
                parsed.expiresAt(), KEY).text();
        String laterExpiry = parsed.accountId() + "." + (parsed.expiresAt().getEpochSecond() + 3600) + "."
                + parsed.signature();
        for (String bad : new String[] {otherKey, otherAddress, laterExpiry, token + "0", "", null, "abc.def.ghi",
                token.substring(0, token.length() - 1) + (token.endsWith("0") ? "1" : "0")}) {
            assertFalse(service.verify(bad, PASSWORD, IP), String.valueOf(bad));
        }
        clock.advance(Duration.ofHours(24));
        assertFalse(service.verify(token, PASSWORD, IP), "expired after 24 h");
        assertFalse(stores.accounts().findByEmail(email("v@example.com")).orElseThrow().emailVerified());
    }

    @Test
    void passwordsTriedThroughALinkCountAsSignInAttempts() {
        service.signUp(new SignUpCommand(email("guess@example.com"), PASSWORD, IP));
        String token = tokenOf(mailer.last());
        for (int i = 0; i < 10; i++) {
            assertFalse(service.verify(token, "wrong guess " + i, "198.51.100." + i));
        }
        RateLimitExceededException limited = assertThrows(RateLimitExceededException.class,
                () -> service.verify(token, PASSWORD, "192.0.2.1"), "the address has spent its sign-in attempts");
        assertEquals(LimitScope.LOGIN_EMAIL, limited.refusal().scope());
        assertFalse(stores.accounts().findByEmail(email("guess@example.com")).orElseThrow().emailVerified());
        clock.advance(Duration.ofMinutes(15));
        assertTrue(service.verify(token, PASSWORD, "192.0.2.1"), "the window passed");
    }

    @Test
    void resendMailsAFreshLinkToAnUnverifiedAccountOnly() {
        service.signUp(new SignUpCommand(email("r@example.com"), PASSWORD, IP));
        Account account = stores.accounts().findByEmail(email("r@example.com")).orElseThrow();
        clock.advance(Duration.ofMinutes(1));
        service.resend(account.id(), IP);
        assertEquals(2, mailer.sent().size());
        assertTrue(service.verify(tokenOf(mailer.last()), PASSWORD, IP));
        service.resend(account.id(), IP);
        assertEquals(2, mailer.sent().size(), "nothing is sent to a verified account");
    }

    @Test
    void mailsPerRecipientAreLimitedAcrossSignUpAndResend() {
        service.signUp(new SignUpCommand(email("bomb@example.com"), PASSWORD, IP));
        Account account = stores.accounts().findByEmail(email("bomb@example.com")).orElseThrow();
        for (int i = 0; i < 4; i++) {
            service.resend(account.id(), "198.51.100." + i);
        }
        RateLimitExceededException limited = assertThrows(RateLimitExceededException.class,
                () -> service.signUp(new SignUpCommand(email("bomb@example.com"), PASSWORD, "192.0.2.1")));
        assertEquals(LimitScope.MAIL_RECIPIENT, limited.refusal().scope());
        assertThrows(RateLimitExceededException.class, () -> service.resend(account.id(), "192.0.2.2"));
        assertEquals(5, mailer.sent().size());
        clock.advance(Duration.ofHours(1));
        service.resend(account.id(), IP);
        assertEquals(6, mailer.sent().size());
    }

    @Test
    void aMailServerFailureIsReportedAsSuch() {
        mailer.failing(true);
        assertThrows(MailUnavailableException.class,
                () -> service.signUp(new SignUpCommand(email("m@example.com"), PASSWORD, IP)));
        assertNotNull(stores.accounts().findByEmail(email("m@example.com")).orElseThrow(),
                "the account exists; its owner can sign in and ask for a new link");
    }
}
