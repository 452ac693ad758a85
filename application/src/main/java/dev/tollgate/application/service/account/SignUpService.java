package dev.tollgate.application.service.account;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.account.ConfirmEmailByOperatorUseCase;
import dev.tollgate.application.port.in.account.MailUnavailableException;
import dev.tollgate.application.port.in.account.ResendVerificationUseCase;
import dev.tollgate.application.port.in.account.SignUpCommand;
import dev.tollgate.application.port.in.account.SignUpPendingException;
import dev.tollgate.application.port.in.account.SignUpUseCase;
import dev.tollgate.application.port.in.account.VerifyAccountEmailUseCase;
import dev.tollgate.application.port.in.account.VerifyEmailLinkUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.CredentialRepository;
import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.application.port.out.Mailer;
import dev.tollgate.application.port.out.PasswordHasher;
import dev.tollgate.application.port.out.SessionRepository;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.account.EmailVerificationToken;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;
import dev.tollgate.domain.quota.AccessRules;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Service: signing up on the dashboard and proving the e-mail address. A sign-up with an address that has an
 * account already does the same work (the password is hashed, a mail is sent) and answers the same, so neither
 * the answer nor its timing tells a visitor which addresses are registered. For a verified account the owner gets
 * a notice; an account still unverified is nobody's yet: the new sign-up's password replaces the pending one, its
 * sessions end and a new link goes to the address — so someone who signed up with another person's address first
 * cannot keep it, and a link confirms only with the password of the latest sign-up.
 */
public final class SignUpService implements SignUpUseCase, VerifyEmailLinkUseCase, ResendVerificationUseCase,
        ConfirmEmailByOperatorUseCase {

    private final AccountRepository accounts;
    private final CredentialRepository credentials;
    private final SessionRepository sessions;
    private final PasswordHasher hasher;
    private final TransactionRunner transactions;
    private final Mailer mailer;
    private final VerificationMails mails;
    private final VerifyAccountEmailUseCase verifyAccountEmail;
    private final TrafficGuard guard;
    private final AccessRules rules;
    private final Clock clock;

    public SignUpService(AccountRepository accounts, CredentialRepository credentials, SessionRepository sessions,
            PasswordHasher hasher, TransactionRunner transactions, Mailer mailer, VerificationMails mails,
            VerifyAccountEmailUseCase verifyAccountEmail, TrafficGuard guard, AccessRules rules, Clock clock) {
        this.accounts = accounts;
        this.credentials = credentials;
        this.sessions = sessions;
        this.hasher = hasher;
        this.transactions = transactions;
        this.mailer = mailer;
        this.mails = mails;
        this.verifyAccountEmail = verifyAccountEmail;
        this.guard = guard;
        this.rules = rules;
        this.clock = clock;
    }

    @Override
    public void signUp(SignUpCommand command) {
        Password password = Password.choose(command.password(), command.email());
        guard.admitAccess(rules.mailSend(command.email().digest(), command.sourceIp()));
        PasswordHash hash = hasher.hash(password);
        Instant now = clock.instant();
        Optional<Account> opened = transactions.inTransaction(() -> {
            Account account = Account.open(command.email(), false, now);
            if (!accounts.insert(account)) {
                return Optional.<Account>empty();
            }
            credentials.save(account.id(), hash, now);
            return Optional.of(account);
        });
        if (opened.isPresent()) {
            send(mails.verification(opened.get(), now));
            return;
        }
        Optional<Account> pending = transactions.inTransaction(() -> {
            Account existing = accounts.findByEmail(command.email()).orElseThrow(AccountNotFoundException::new);
            // A confirmed account, or one the operator made with the CLI (it has no password, and the operator may
            // confirm it later): the owner gets a notice and nothing changes (an audit found the sign-up's password
            // set on a CLI account, which the operator's later confirmation then handed to whoever chose it).
            if (existing.emailVerified() || credentials.findByAccount(existing.id()).isEmpty()) {
                return Optional.<Account>empty();
            }
            credentials.save(existing.id(), hash, now);
            sessions.deleteAll(existing.id());
            return Optional.of(existing);
        });
        if (pending.isPresent()) {
            send(mails.verification(pending.get(), now));
        } else {
            send(mails.alreadyRegistered(accounts.findByEmail(command.email())
                    .orElseThrow(AccountNotFoundException::new)));
        }
    }

    @Override
    public boolean verify(String tokenText, String password, String sourceIp) {
        Optional<EmailVerificationToken> token = EmailVerificationToken.parse(tokenText);
        if (token.isEmpty()) {
            return false;
        }
        Optional<Account> account = accounts.findById(token.get().accountId());
        if (account.isEmpty() || !token.get().isValidFor(account.get().email(), mails.key(), clock.instant())) {
            return false;
        }
        guard.admitAccess(rules.loginAttempt(account.get().email().digest(), sourceIp));
        Optional<PasswordHash> stored = credentials.findByAccount(account.get().id());
        if (stored.isEmpty() || !hasher.matches(Password.given(password == null ? "" : password), stored.get())) {
            return false;
        }
        if (!account.get().emailVerified()) {
            verifyAccountEmail.verify(account.get().email());
        }
        return true;
    }

    @Override
    public void confirm(Email email, boolean discardSignUp) {
        transactions.inTransaction(() -> {
            Account account = accounts.findByEmail(email).orElseThrow(() -> new AccountNotFoundException(email));
            if (!account.emailVerified() && credentials.findByAccount(account.id()).isPresent()) {
                if (!discardSignUp) {
                    throw new SignUpPendingException(email);
                }
                credentials.delete(account.id());
                sessions.deleteAll(account.id());
            }
            verifyAccountEmail.verify(email);
            return null;
        });
    }

    @Override
    public void resend(AccountId accountId, String sourceIp) {
        Account account = accounts.findById(accountId).orElseThrow(AccountNotFoundException::new);
        if (account.emailVerified()) {
            return;
        }
        guard.admitAccess(rules.mailSend(account.email().digest(), sourceIp));
        send(mails.verification(account, clock.instant()));
    }

    private void send(MailMessage message) {
        try {
            mailer.send(message);
        } catch (Mailer.Unavailable e) {
            throw new MailUnavailableException();
        }
    }
}
