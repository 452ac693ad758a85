package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Email;

/** Use case: mark an account's e-mail as verified (operator CLI {@code admin account verify}). */
public interface VerifyAccountEmailUseCase {

    void verify(Email email);
}
