package dev.tollgate.application.port.in.keys;

import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import java.util.Objects;
import java.util.Optional;

/** Query result: a regular key with its usage at the time of the query (the §2.1 key record). */
public record ApiKeyDetails(ApiKey key, KeyUsage usage) {

    public ApiKeyDetails {
        Objects.requireNonNull(key);
        Objects.requireNonNull(usage);
    }

    public Optional<Usd> limitRemaining() {
        return usage.limitRemaining(key.limit());
    }
}
