package dev.tollgate.domain.account;

import java.util.Objects;
import java.util.UUID;

/** Identifier of an account. */
public record AccountId(UUID value) {

    public AccountId {
        Objects.requireNonNull(value, "account id");
    }

    public static AccountId newId() {
        return new AccountId(UUID.randomUUID());
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
