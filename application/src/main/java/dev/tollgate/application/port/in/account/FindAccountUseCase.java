package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;

/** Use case: look an account up by e-mail (operator CLI). */
public interface FindAccountUseCase {

    /** @throws AccountNotFoundException no such account */
    Account byEmail(Email email);
}
