package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.SigningKey;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Value object: the token of an e-mail verification link, {@code <account id>.<expiry, epoch seconds>.<signature>}.
 * The signature is HMAC-SHA-256 over the account id, the e-mail address the link was sent to and the expiry, so a
 * link proves that someone read that mailbox before the expiry; nothing is stored. Hex and a UUID only: the token
 * never contains a dash followed by letters that could look like a key.
 */
public record EmailVerificationToken(AccountId accountId, Instant expiresAt, String signature) {

    private static final Pattern SHAPE = Pattern.compile(
            "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\\.([0-9]{1,12})\\.([0-9a-f]{64})");

    public EmailVerificationToken {
        Objects.requireNonNull(accountId);
        Objects.requireNonNull(expiresAt);
        Objects.requireNonNull(signature);
    }

    public static EmailVerificationToken sign(AccountId accountId, Email email, Instant expiresAt, SigningKey key) {
        Instant expiry = Instant.ofEpochSecond(expiresAt.getEpochSecond());
        return new EmailVerificationToken(accountId, expiry, key.signHex(message(accountId, email, expiry)));
    }

    /** Reads a token's parts; empty for anything not shaped like a token (its signature is not checked here). */
    public static Optional<EmailVerificationToken> parse(String text) {
        if (text == null || text.length() > 120) {
            return Optional.empty();
        }
        Matcher m = SHAPE.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new EmailVerificationToken(new AccountId(UUID.fromString(m.group(1))),
                Instant.ofEpochSecond(Long.parseLong(m.group(2))), m.group(3)));
    }

    /** Whether this token was signed with {@code key} for {@code email} and is not expired at {@code now}. */
    public boolean isValidFor(Email email, SigningKey key, Instant now) {
        boolean signed = key.verifiesHex(message(accountId, email, expiresAt), signature);
        return signed && now.isBefore(expiresAt);
    }

    public String text() {
        return accountId + "." + expiresAt.getEpochSecond() + "." + signature;
    }

    private static String message(AccountId accountId, Email email, Instant expiresAt) {
        return "email-verification:v1:" + accountId + ":" + email.value() + ":" + expiresAt.getEpochSecond();
    }

    @Override
    public String toString() {
        return "EmailVerificationToken[" + accountId + ", expires " + expiresAt + "]";
    }
}
