package dev.tollgate.application.port.in.session;

import java.util.Objects;

/**
 * Command to sign in on the dashboard: the e-mail address and password as typed (an address that is not one is
 * refused like a wrong password), the visitor's source IP, and the browser's current session token if it has one
 * (that session ends: a sign-in always starts a new session).
 */
public record LogInCommand(String email, String password, String sourceIp, String previousSessionToken) {

    public LogInCommand {
        Objects.requireNonNull(sourceIp);
    }

    @Override
    public String toString() {
        return "LogInCommand[" + email + ", password ***, " + sourceIp + "]";
    }
}
