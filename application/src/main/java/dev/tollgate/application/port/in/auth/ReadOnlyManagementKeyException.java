package dev.tollgate.application.port.in.auth;

import dev.tollgate.application.port.in.UseCaseException;

/** §4.1 rule 7: a write call with a read_only management key. */
public final class ReadOnlyManagementKeyException extends UseCaseException {

    public ReadOnlyManagementKeyException() {
        super("Management API key is read-only");
    }

    @Override
    public String code() {
        return "management_key_read_only";
    }
}
