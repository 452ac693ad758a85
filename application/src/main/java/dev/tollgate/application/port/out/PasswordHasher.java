package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;

/** Out port: a slow, salted password hash (Argon2id) and its constant-time verification. */
public interface PasswordHasher {

    PasswordHash hash(Password password);

    /**
     * Whether {@code password} is the one {@code stored} was made from. Takes as long for a wrong password as for
     * the right one; a stored hash it cannot read counts as a mismatch.
     */
    boolean matches(Password password, PasswordHash stored);
}
