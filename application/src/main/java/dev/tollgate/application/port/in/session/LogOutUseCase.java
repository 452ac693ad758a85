package dev.tollgate.application.port.in.session;

/** Use case: end a dashboard session. */
public interface LogOutUseCase {

    /** Ends the session of this cookie value, if there is one; anything else is ignored. */
    void logOut(String sessionToken);
}
