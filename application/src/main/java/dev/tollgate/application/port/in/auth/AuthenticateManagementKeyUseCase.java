package dev.tollgate.application.port.in.auth;

/** Use case: authenticate a bearer credential on the control plane {@code /api/v1/keys*} (§5). */
public interface AuthenticateManagementKeyUseCase {

    /**
     * @param bearerToken the credential after {@code Bearer }, or {@code null} when none was sent
     * @throws InvalidManagementKeyException missing, malformed, unknown, disabled or expired key, or a regular key
     * @throws EmailNotVerifiedException the owning account has no verified e-mail
     */
    ManagementPrincipal authenticate(String bearerToken);
}
