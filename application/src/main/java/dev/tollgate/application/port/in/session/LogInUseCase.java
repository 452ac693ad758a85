package dev.tollgate.application.port.in.session;

/** Use case: sign in on the dashboard with e-mail and password. */
public interface LogInUseCase {

    /**
     * @throws InvalidCredentialsException unknown address, wrong password or no password set (one answer for all)
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException too many attempts for this
     *         address or from this source IP
     */
    SignedIn logIn(LogInCommand command);
}
