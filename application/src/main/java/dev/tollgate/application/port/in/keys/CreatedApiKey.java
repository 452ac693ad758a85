package dev.tollgate.application.port.in.keys;

import dev.tollgate.domain.shared.RawKey;
import java.util.Objects;

/** Result of creating a regular key: the raw secret, shown once (§2.2), and the key record. */
public record CreatedApiKey(RawKey rawKey, ApiKeyDetails details) {

    public CreatedApiKey {
        Objects.requireNonNull(rawKey);
        Objects.requireNonNull(details);
    }
}
