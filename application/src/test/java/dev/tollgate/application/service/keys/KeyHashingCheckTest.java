package dev.tollgate.application.service.keys;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.KeyHashingRecord;
import dev.tollgate.domain.shared.KeyHasher;
import org.junit.jupiter.api.Test;

/**
 * A process with another key pepper than the stored keys' is refused (an audit, 2026-11-29: an operator CLI run
 * without the gateway's pepper printed keys that then answered 401, and a second instance with another pepper
 * started and refused every key).
 */
class KeyHashingCheckTest {

    /** The store's record: the first fingerprint told is kept. */
    private static final class Recorded implements KeyHashingRecord {
        private String kept;

        @Override
        public synchronized String recordOrRead(String fingerprint) {
            if (kept == null) {
                kept = fingerprint;
            }
            return kept;
        }
    }

    @Test
    void theFirstProcessRecordsItsHashingAndTheSameHashingPasses() {
        Recorded record = new Recorded();
        assertDoesNotThrow(() -> new KeyHashingCheck(KeyHasher.hmacSha256("deployment-pepper"), record).verify());
        assertDoesNotThrow(() -> new KeyHashingCheck(KeyHasher.hmacSha256("deployment-pepper"), record).verify());
    }

    @Test
    void anotherPepperOrNoneIsRefusedNamingTheVariable() {
        Recorded record = new Recorded();
        new KeyHashingCheck(KeyHasher.hmacSha256("deployment-pepper"), record).verify();
        for (KeyHasher other : new KeyHasher[] {KeyHasher.hmacSha256("another"), KeyHasher.sha256()}) {
            KeyHashingCheck.KeyHashingMismatch refused = assertThrows(KeyHashingCheck.KeyHashingMismatch.class,
                    () -> new KeyHashingCheck(other, record).verify());
            assertTrue(refused.getMessage().contains("TOLLGATE_KEY_PEPPER"), refused.getMessage());
        }
        Recorded unpeppered = new Recorded();
        new KeyHashingCheck(KeyHasher.sha256(), unpeppered).verify();
        assertThrows(KeyHashingCheck.KeyHashingMismatch.class,
                () -> new KeyHashingCheck(KeyHasher.hmacSha256("set later"), unpeppered).verify());
    }
}
