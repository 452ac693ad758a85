package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;

/** Use case: add prepaid funds to an account (operator CLI {@code admin account credit}). */
public interface CreditAccountUseCase {

    /** @return the balance after the credit */
    Usd credit(Email email, Usd amount);
}
