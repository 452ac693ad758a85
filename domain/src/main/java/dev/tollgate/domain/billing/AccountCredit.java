package dev.tollgate.domain.billing;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.Timestamps;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * Value object: money added to an account's prepaid balance (§1 billing rules) — one line of the credit ledger,
 * with the balance the account could spend right after it.
 */
public record AccountCredit(UUID id, AccountId accountId, Usd amount, CreditSource source, String note,
        Usd balanceAfter, Instant createdAt) {

    /** Longest note kept with a credit. */
    public static final int MAX_NOTE_LENGTH = 200;

    public AccountCredit {
        Objects.requireNonNull(id);
        Objects.requireNonNull(accountId);
        Objects.requireNonNull(amount);
        Objects.requireNonNull(source);
        Objects.requireNonNull(note);
        Objects.requireNonNull(balanceAfter);
        Objects.requireNonNull(createdAt);
        if (!amount.isPositive()) {
            throw new IllegalArgumentException("a credit adds a positive amount, got " + amount);
        }
        if (note.codePointCount(0, note.length()) > MAX_NOTE_LENGTH) {
            throw new IllegalArgumentException("a credit's note has at most " + MAX_NOTE_LENGTH + " characters");
        }
    }

    /** A new credit, stamped to the millisecond the ledger keeps. */
    public static AccountCredit of(AccountId accountId, Usd amount, CreditSource source, String note,
            Usd balanceAfter, Instant at) {
        return new AccountCredit(UUID.randomUUID(), accountId, amount, source, note, balanceAfter,
                Timestamps.millis(at));
    }
}
