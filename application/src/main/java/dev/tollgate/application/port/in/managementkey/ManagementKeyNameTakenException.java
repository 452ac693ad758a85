package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.shared.KeyName;

/** Management key names are unique within an account, so that one name identifies one key. */
public final class ManagementKeyNameTakenException extends UseCaseException {

    public ManagementKeyNameTakenException(KeyName name) {
        super("a management key named '" + name + "' exists already in this account");
    }

    @Override
    public String code() {
        return "management_key_name_taken";
    }
}
