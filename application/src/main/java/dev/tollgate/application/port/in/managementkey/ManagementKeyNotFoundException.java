package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.shared.KeyName;

/** The account has no management key of the given name. */
public final class ManagementKeyNotFoundException extends UseCaseException {

    public ManagementKeyNotFoundException(KeyName name) {
        super("no management key named '" + name + "' in this account");
    }

    public ManagementKeyNotFoundException() {
        super("no such management key in this account");
    }

    @Override
    public String code() {
        return "management_key_not_found";
    }
}
