package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Email;
import java.util.Objects;

/** Command to sign up on the dashboard: e-mail, the chosen password as typed, and the visitor's source IP. */
public record SignUpCommand(Email email, String password, String sourceIp) {

    public SignUpCommand {
        Objects.requireNonNull(email);
        Objects.requireNonNull(sourceIp);
    }

    @Override
    public String toString() {
        return "SignUpCommand[" + email + ", password ***, " + sourceIp + "]";
    }
}
