package dev.tollgate.application.port.in.auth;

import dev.tollgate.application.port.in.UseCaseException;

/**
 * §5.4: the management credential is missing, unknown, disabled, expired or otherwise invalid. One message for
 * every cause, so the answer reveals nothing about which keys exist.
 */
public final class InvalidManagementKeyException extends UseCaseException {

    public InvalidManagementKeyException() {
        super("Unauthorized: send a valid, active management key (gpm-...) as 'Authorization: Bearer <key>'");
    }

    @Override
    public String code() {
        return "invalid_management_key";
    }
}
