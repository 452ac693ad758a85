package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import java.util.Objects;

/** Command to open an account, optionally already verified and with an opening credit. */
public record OpenAccountCommand(Email email, boolean emailVerified, Usd openingCredit) {

    public OpenAccountCommand {
        Objects.requireNonNull(email);
        Objects.requireNonNull(openingCredit);
    }
}
