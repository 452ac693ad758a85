package dev.tollgate.application.port.in.keys;

import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Objects;

/** Command to create a regular key; {@code limit}, {@code limitReset} and {@code expiresAt} may be null. */
public record CreateApiKeyCommand(KeyName name, Usd limit, LimitReset limitReset, Instant expiresAt) {

    public CreateApiKeyCommand {
        Objects.requireNonNull(name);
    }
}
