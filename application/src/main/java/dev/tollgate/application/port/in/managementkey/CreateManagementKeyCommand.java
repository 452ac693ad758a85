package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyName;
import java.time.Instant;
import java.util.Objects;

/** Command to create a management key for an account; {@code expiresAt} may be null. */
public record CreateManagementKeyCommand(Email email, KeyName name, ManagementAccess access, Instant expiresAt) {

    public CreateManagementKeyCommand {
        Objects.requireNonNull(email);
        Objects.requireNonNull(name);
        Objects.requireNonNull(access);
    }
}
