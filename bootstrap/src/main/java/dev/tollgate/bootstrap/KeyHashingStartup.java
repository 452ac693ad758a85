package dev.tollgate.bootstrap;

import dev.tollgate.application.port.out.KeyHashingRecord;
import dev.tollgate.application.service.keys.KeyHashingCheck;
import dev.tollgate.domain.shared.KeyHasher;
import io.micronaut.context.annotation.Context;

/**
 * Start-up check, for the gateway and every operator command alike: this process hashes keys as the stored keys
 * were hashed ({@code TOLLGATE_KEY_PEPPER}), or it does not start — one line says which variable to set.
 */
@Context
final class KeyHashingStartup {

    KeyHashingStartup(KeyHasher hasher, KeyHashingRecord record) {
        new KeyHashingCheck(hasher, record).verify();
    }
}
