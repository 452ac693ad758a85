package dev.tollgate.application.service.keys;

import dev.tollgate.application.port.out.KeyHashingRecord;
import dev.tollgate.domain.shared.KeyHasher;

/**
 * Application service: refuses to work with a key hashing other than the one the stored keys were issued with — a
 * gateway instance or operator command started without the deployment's {@code TOLLGATE_KEY_PEPPER}, or with
 * another one, would answer every key with 401 and issue keys that never match.
 */
public final class KeyHashingCheck {

    private final KeyHasher hasher;
    private final KeyHashingRecord record;

    public KeyHashingCheck(KeyHasher hasher, KeyHashingRecord record) {
        this.hasher = hasher;
        this.record = record;
    }

    /** @throws KeyHashingMismatch when the stored keys were hashed with another pepper (or none) */
    public void verify() {
        String mine = hasher.fingerprint();
        if (!record.recordOrRead(mine).equals(mine)) {
            throw new KeyHashingMismatch();
        }
    }

    /** This process's key pepper is not the one the stored keys were issued with. */
    public static final class KeyHashingMismatch extends IllegalStateException {
        KeyHashingMismatch() {
            super("TOLLGATE_KEY_PEPPER is not the one this database's keys were issued with (it differs, or is set "
                    + "on one side only): every key would be refused and new ones would never match. Set the same "
                    + "TOLLGATE_KEY_PEPPER as the running gateway, for every instance and for the operator CLI");
        }
    }
}
