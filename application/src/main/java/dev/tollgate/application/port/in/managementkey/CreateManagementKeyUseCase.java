package dev.tollgate.application.port.in.managementkey;

/** Use case: create a management key (operator CLI {@code admin management-key create}; later the dashboard). */
public interface CreateManagementKeyUseCase {

    /**
     * @throws dev.tollgate.application.port.in.auth.EmailNotVerifiedException the account is not verified (§1)
     * @throws ManagementKeyLimitReachedException 25 active keys exist (§8.3)
     * @throws ManagementKeyNameTakenException the account has a key of that name
     */
    CreatedManagementKey create(CreateManagementKeyCommand command);
}
