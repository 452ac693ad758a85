package dev.tollgate.application.port.in.managementkey;

import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.shared.RawKey;

/** Result of creating a management key: the raw {@code gpm-} secret, shown once, and the key. */
public record CreatedManagementKey(RawKey rawKey, ManagementKey key) {
}
