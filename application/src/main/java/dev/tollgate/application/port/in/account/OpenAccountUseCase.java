package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.AccountId;

/** Use case: open an account (operator CLI {@code admin account create}). */
public interface OpenAccountUseCase {

    /** @throws AccountAlreadyExistsException the e-mail is taken */
    AccountId open(OpenAccountCommand command);
}
