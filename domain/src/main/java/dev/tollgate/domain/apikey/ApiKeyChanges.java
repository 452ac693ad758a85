package dev.tollgate.domain.apikey;

import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Objects;

/** A partial update of a regular key: every field may be kept, set or (where allowed) cleared (§4.1 PATCH). */
public record ApiKeyChanges(
        FieldChange<KeyName> name,
        FieldChange<Boolean> disabled,
        FieldChange<Usd> limit,
        FieldChange<LimitReset> limitReset,
        FieldChange<Instant> expiresAt) {

    public ApiKeyChanges {
        Objects.requireNonNull(name);
        Objects.requireNonNull(disabled);
        Objects.requireNonNull(limit);
        Objects.requireNonNull(limitReset);
        Objects.requireNonNull(expiresAt);
    }

    public static ApiKeyChanges none() {
        return new ApiKeyChanges(FieldChange.keep(), FieldChange.keep(), FieldChange.keep(), FieldChange.keep(),
                FieldChange.keep());
    }
}
