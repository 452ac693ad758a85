package dev.tollgate.application.port.in.session;

import dev.tollgate.application.port.in.UseCaseException;

/** A request that claims to come from a dashboard session (it carries the session's form token) has no live one. */
public final class SessionRequiredException extends UseCaseException {

    public SessionRequiredException() {
        super("Your dashboard session has ended: sign in again");
    }

    @Override
    public String code() {
        return "session_required";
    }
}
