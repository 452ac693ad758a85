package dev.tollgate.application.service.account;

import dev.tollgate.application.port.out.MailMessage;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.EmailVerificationToken;
import dev.tollgate.domain.shared.SigningKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/** The dashboard's mails: a verification link, and the notice sent instead when an address signs up again. */
public final class VerificationMails {

    /** The product name in subjects and greetings. */
    private static final String PRODUCT = "Tollgate";

    private final String publicUrl;
    private final SigningKey key;
    private final Duration linkLifetime;

    /**
     * @param publicUrl    where people reach the dashboard, e.g. {@code https://gateway.example.com} (no trailing
     *                     slash); links in mails start with it, never with a request's Host header
     * @param key          signs the links
     * @param linkLifetime how long a verification link works (24 hours by default)
     */
    public VerificationMails(String publicUrl, SigningKey key, Duration linkLifetime) {
        Objects.requireNonNull(publicUrl);
        this.publicUrl = publicUrl.endsWith("/") ? publicUrl.substring(0, publicUrl.length() - 1) : publicUrl;
        this.key = Objects.requireNonNull(key);
        this.linkLifetime = Objects.requireNonNull(linkLifetime);
    }

    public SigningKey key() {
        return key;
    }

    public MailMessage verification(Account account, Instant now) {
        EmailVerificationToken token = EmailVerificationToken.sign(account.id(), account.email(),
                now.plus(linkLifetime), key);
        String link = publicUrl + "/verify?token=" + token.text();
        String text = "Hello,\n\n"
                + "please confirm that " + account.email() + " is your address by opening this link within "
                + hours() + " hours:\n\n" + link + "\n\n"
                + "Until you do, the management API (/api/v1/keys) answers 403 for your account.\n\n"
                + "If you did not sign up for " + PRODUCT + ", ignore this mail: nothing happens without the link.\n";
        return new MailMessage(account.email(), "Confirm your e-mail address for " + PRODUCT, text, link);
    }

    public MailMessage alreadyRegistered(Account account) {
        String link = publicUrl + "/login";
        String text = "Hello,\n\n"
                + "someone (perhaps you) tried to sign up for " + PRODUCT + " with " + account.email()
                + ", which already has an account. Nothing was changed.\n\n"
                + "If it was you, sign in instead:\n\n" + link + "\n\n"
                + (account.emailVerified() ? ""
                        : "Your address is not verified yet: after signing in, ask for a new verification link.\n\n")
                + "If it was not you, ignore this mail.\n";
        return new MailMessage(account.email(), "Someone tried to sign up with your address", text, link);
    }

    private long hours() {
        return Math.max(1, linkLifetime.toHours());
    }
}
