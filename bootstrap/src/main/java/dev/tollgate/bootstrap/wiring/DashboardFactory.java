package dev.tollgate.bootstrap.wiring;

import dev.tollgate.adapter.out.upstream.mail.OutboxMailer;
import dev.tollgate.adapter.out.upstream.mail.SmtpMailer;
import dev.tollgate.adapter.out.persistence.credentials.Argon2idPasswordHasher;
import dev.tollgate.application.port.in.account.VerifyAccountEmailUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.application.port.out.Mailer;
import dev.tollgate.application.port.out.PasswordHasher;
import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.account.OutboxService;
import dev.tollgate.application.service.account.SignUpService;
import dev.tollgate.application.service.account.VerificationMails;
import dev.tollgate.application.service.session.SessionService;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.quota.AccessLimits;
import dev.tollgate.domain.quota.AccessRules;
import dev.tollgate.domain.session.SessionLifetime;
import dev.tollgate.domain.shared.SigningKey;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.condition.Condition;
import io.micronaut.context.condition.ConditionContext;
import jakarta.inject.Singleton;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wiring: the account dashboard — passwords (Argon2id), sessions, sign-in and mail limits, verification links, and
 * the mailer: SMTP when {@code tollgate.smtp.host} is set, else the local outbox (log and {@code /outbox}).
 */
@Factory
public class DashboardFactory {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardFactory.class);

    /** Signs verification links and the signed-out forms' tokens; random per process when not configured. */
    @Singleton
    SigningKey dashboardSigningKey(@Value("${tollgate.dashboard.secret:}") String secret) {
        if (secret.isBlank()) {
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            LOG.info("Dashboard: TOLLGATE_DASHBOARD_SECRET is not set, so a random secret signs verification links "
                    + "and sign-in forms; links mailed before a restart stop working (set it on every instance)");
            return SigningKey.of(random);
        }
        if (secret.length() < 32) {
            throw new IllegalArgumentException("tollgate.dashboard.secret must have at least 32 characters");
        }
        return SigningKey.of(secret);
    }

    @Singleton
    PasswordHasher passwordHasher(
            @Value("${tollgate.dashboard.password.memory-kib:19456}") int memoryKib,
            @Value("${tollgate.dashboard.password.iterations:2}") int iterations,
            @Value("${tollgate.dashboard.password.parallelism:1}") int parallelism) {
        return new Argon2idPasswordHasher(new Argon2idPasswordHasher.Parameters(memoryKib, iterations, parallelism));
    }

    @Singleton
    AccessRules accessRules(
            @Value("${tollgate.dashboard.login.per-email:10}") long loginPerEmail,
            @Value("${tollgate.dashboard.login.per-ip:10}") long loginPerIp,
            @Value("${tollgate.dashboard.login.window:15m}") Duration loginWindow,
            @Value("${tollgate.dashboard.mail.per-recipient:5}") long mailPerRecipient,
            @Value("${tollgate.dashboard.mail.per-ip:20}") long mailPerIp,
            @Value("${tollgate.dashboard.mail.window:1h}") Duration mailWindow) {
        return new AccessRules(new AccessLimits(loginPerEmail, loginPerIp, loginWindow, mailPerRecipient, mailPerIp,
                mailWindow));
    }

    @Singleton
    SessionLifetime sessionLifetime(@Value("${tollgate.dashboard.session.idle:12h}") Duration idle,
            @Value("${tollgate.dashboard.session.absolute:7d}") Duration absolute) {
        return new SessionLifetime(idle, absolute);
    }

    @Singleton
    VerificationMails verificationMails(SigningKey key,
            @Value("${tollgate.dashboard.public-url:}") String publicUrl,
            @Value("${tollgate.smtp.host:}") String smtpHost,
            @Value("${micronaut.server.port:8080}") int port,
            @Value("${tollgate.dashboard.verification-lifetime:24h}") Duration lifetime) {
        String base = publicUrl.strip();
        if (base.isEmpty()) {
            if (!smtpHost.isBlank()) {
                throw new IllegalArgumentException("tollgate.dashboard.public-url (TOLLGATE_DASHBOARD_PUBLIC_URL) must "
                        + "be set when SMTP is configured: links in mails start with it");
            }
            base = port > 0 ? "http://localhost:" + port : "http://localhost";
        } else if (!base.startsWith("https://") && !base.startsWith("http://")) {
            throw new IllegalArgumentException("tollgate.dashboard.public-url must start with https:// or http://");
        }
        return new VerificationMails(base, key, lifetime);
    }

    @Singleton
    @Requires(condition = SmtpConfigured.class)
    Mailer smtpMailer(@Value("${tollgate.smtp.host}") String host,
            @Value("${tollgate.smtp.port:587}") int port,
            @Value("${tollgate.smtp.username:}") String username,
            @Value("${tollgate.smtp.password:}") String password,
            @Value("${tollgate.smtp.from:}") String from,
            @Value("${tollgate.smtp.tls:starttls}") String tls,
            @Value("${tollgate.smtp.timeout:10s}") Duration timeout) {
        if (from.isBlank()) {
            throw new IllegalArgumentException("tollgate.smtp.from (TOLLGATE_SMTP_FROM) must be set with an SMTP host");
        }
        SmtpMailer mailer = new SmtpMailer(new SmtpMailer.Settings(host.strip(), port, username, password, from,
                SmtpMailer.Tls.parse(tls), timeout));
        LOG.info("Dashboard mail: SMTP via {}", mailer.endpoint());
        return mailer;
    }

    @Singleton
    @Requires(condition = NoSmtp.class)
    OutboxMailer outboxMailer(Clock clock, @Value("${tollgate.dashboard.outbox.size:100}") int size) {
        LOG.info("Dashboard mail: no SMTP host configured (TOLLGATE_SMTP_HOST), so mails go to the log and to "
                + "/outbox, readable from this machine only");
        return new OutboxMailer(clock, size);
    }

    @Singleton
    @Requires(condition = NoSmtp.class)
    OutboxService outbox(OutboxMailer outbox) {
        return new OutboxService(outbox);
    }

    @Singleton
    SignUpService signUp(AccountRepository accounts, CredentialRepository credentials, SessionRepository sessions,
            PasswordHasher hasher, TransactionRunner transactions, Mailer mailer, VerificationMails mails,
            VerifyAccountEmailUseCase verifyAccountEmail, TrafficGuard guard, AccessRules rules, Clock clock) {
        return new SignUpService(accounts, credentials, sessions, hasher, transactions, mailer, mails,
                verifyAccountEmail, guard, rules, clock);
    }

    @Singleton
    SessionService sessions(AccountRepository accounts, CredentialRepository credentials,
            SessionRepository sessions, PasswordHasher hasher, TrafficGuard guard, AccessRules rules,
            SessionLifetime lifetime, Clock clock) {
        return new SessionService(accounts, credentials, sessions, hasher, guard, rules, lifetime, new SecureRandom(),
                clock);
    }

    /** An SMTP host is configured (non-blank). */
    public static final class SmtpConfigured implements Condition {
        @Override
        public boolean matches(ConditionContext context) {
            return context.getProperty("tollgate.smtp.host", String.class).filter(h -> !h.isBlank()).isPresent();
        }
    }

    /** No SMTP host is configured: the embedded default's outbox. */
    public static final class NoSmtp implements Condition {
        @Override
        public boolean matches(ConditionContext context) {
            return !new SmtpConfigured().matches(context);
        }
    }
}
