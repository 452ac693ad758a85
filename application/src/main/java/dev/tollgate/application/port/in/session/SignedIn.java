package dev.tollgate.application.port.in.session;

import dev.tollgate.domain.session.DashboardSession;
import dev.tollgate.domain.session.SessionToken;
import java.util.Objects;

/** Result of a sign-in: the new session and its token, which only the browser's cookie ever holds. */
public record SignedIn(SessionToken token, DashboardSession session) {

    public SignedIn {
        Objects.requireNonNull(token);
        Objects.requireNonNull(session);
    }
}
