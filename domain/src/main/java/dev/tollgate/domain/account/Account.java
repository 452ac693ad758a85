package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Objects;

/**
 * Entity: an account that owns keys and a prepaid USD balance shared by all of its regular keys (§1).
 *
 * <p>The balance here is a snapshot; changes to it are atomic increments in the store, never
 * read-modify-write through this object.
 */
public final class Account {

    private final AccountId id;
    private final Email email;
    private final boolean emailVerified;
    private final Usd balance;
    private final Instant createdAt;

    private Account(AccountId id, Email email, boolean emailVerified, Usd balance, Instant createdAt) {
        this.id = Objects.requireNonNull(id);
        this.email = Objects.requireNonNull(email);
        this.emailVerified = emailVerified;
        this.balance = Objects.requireNonNull(balance);
        this.createdAt = Objects.requireNonNull(createdAt);
    }

    public static Account open(Email email, boolean emailVerified, Instant now) {
        return new Account(AccountId.newId(), email, emailVerified, Usd.ZERO, now);
    }

    public static Account restore(AccountId id, Email email, boolean emailVerified, Usd balance, Instant createdAt) {
        return new Account(id, email, emailVerified, balance, createdAt);
    }

    public AccountId id() {
        return id;
    }

    public Email email() {
        return email;
    }

    /** §1: a verified e-mail is needed to create management keys and to use {@code /api/v1/keys}. */
    public boolean emailVerified() {
        return emailVerified;
    }

    public Usd balance() {
        return balance;
    }

    public Instant createdAt() {
        return createdAt;
    }
}
