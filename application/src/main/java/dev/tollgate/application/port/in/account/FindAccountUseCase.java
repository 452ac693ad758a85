package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;

/** Use case: look an account up (by e-mail: operator CLI; by id: the dashboard's signed-in account). */
public interface FindAccountUseCase {

    /** @throws AccountNotFoundException no such account */
    Account byEmail(Email email);

    /** @throws AccountNotFoundException no such account */
    Account byId(AccountId id);
}
