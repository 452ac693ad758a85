package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.managementkey.ManagementKeyPolicy;

/** §8.3: the account already has the maximum number of active management keys. */
public final class ManagementKeyLimitReachedException extends UseCaseException {

    public ManagementKeyLimitReachedException() {
        super("this account already has " + ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT
                + " active management keys; disable one before creating another");
    }

    @Override
    public String code() {
        return "management_key_limit_reached";
    }
}
