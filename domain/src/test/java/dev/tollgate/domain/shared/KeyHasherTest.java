package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyHasherTest {

    private static final RawKey REGULAR =
            RawKey.parse("gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W", KeyKind.REGULAR).orElseThrow();
    private static final RawKey MANAGEMENT =
            RawKey.parse("gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV", KeyKind.MANAGEMENT).orElseThrow();

    // Reference values computed outside the JVM: `printf %s KEY | sha256sum` and
    // `printf %s KEY | openssl dgst -sha256 -hmac pepper-1`.
    private static final String REGULAR_SHA256 = "beaad437231de3576d93dbd74f4595c2dbb8412f46fe08b2bbf89cde44168a28";
    private static final String REGULAR_HMAC = "df5c45442d9fbe04bc844d36ea2f1f61532a547277172eddc320aeffeea39d1a";
    private static final String MANAGEMENT_SHA256 =
            "ee743ec4d3957ba26b2a03060412d44899c31805a22e6b250dca7f3058fc55bf";
    private static final String MANAGEMENT_HMAC =
            "cf064efb672db6034de4978c933e8d1b485c2a4ed21caca031c7c31b88daae70";

    @Test
    void hashesAre64LowercaseHexCharacters() {
        SplittableRandom random = new SplittableRandom(3);
        for (KeyHasher hasher : new KeyHasher[] {KeyHasher.sha256(), KeyHasher.hmacSha256("pepper-1")}) {
            for (int i = 0; i < 200; i++) {
                String hex = hasher.hash(RawKey.generate(KeyKind.REGULAR, random)).hex();
                assertEquals(64, hex.length(), hex);
                assertTrue(hex.matches("[0-9a-f]{64}"), hex);
            }
        }
    }

    @Test
    void sha256MatchesAKnownVector() {
        assertEquals(REGULAR_SHA256, KeyHasher.sha256().hash(REGULAR).hex());
        assertEquals(MANAGEMENT_SHA256, KeyHasher.sha256().hash(MANAGEMENT).hex());
    }

    @Test
    void hmacMatchesAKnownVector() {
        assertEquals(REGULAR_HMAC, KeyHasher.hmacSha256("pepper-1").hash(REGULAR).hex());
        assertEquals(MANAGEMENT_HMAC, KeyHasher.hmacSha256("pepper-1").hash(MANAGEMENT).hex());
    }

    @Test
    void hashingIsDeterministic() {
        assertEquals(KeyHasher.sha256().hash(REGULAR), KeyHasher.sha256().hash(REGULAR));
        assertEquals(KeyHasher.hmacSha256("p").hash(REGULAR), KeyHasher.hmacSha256("p").hash(REGULAR));
    }

    @Test
    void hmacDiffersFromSha256AndDependsOnThePepper() {
        KeyHash plain = KeyHasher.sha256().hash(REGULAR);
        KeyHash one = KeyHasher.hmacSha256("pepper-1").hash(REGULAR);
        KeyHash two = KeyHasher.hmacSha256("pepper-2").hash(REGULAR);
        assertNotEquals(plain, one);
        assertNotEquals(plain, two);
        assertNotEquals(one, two);
    }

    @Test
    void anEmptyOrMissingPepperMeansPlainSha256() {
        assertEquals(KeyHasher.sha256().hash(REGULAR), KeyHasher.hmacSha256("").hash(REGULAR));
        assertEquals(KeyHasher.sha256().hash(REGULAR), KeyHasher.hmacSha256(null).hash(REGULAR));
        assertEquals(REGULAR_SHA256, KeyHasher.hmacSha256("").hash(REGULAR).hex());
    }

    @Test
    void differentKeysHashDifferently() {
        assertNotEquals(KeyHasher.sha256().hash(REGULAR), KeyHasher.sha256().hash(MANAGEMENT));
    }

    @Test
    void theHashDoesNotContainTheRawKey() {
        KeyHash hash = KeyHasher.hmacSha256("pepper-1").hash(REGULAR);
        assertTrue(!hash.hex().contains(REGULAR.reveal()) && !hash.toString().contains(REGULAR.reveal()));
    }

    @Test
    void theFingerprintTellsPeppersApartAndHidesThem() {
        assertEquals(KeyHasher.hmacSha256("pepper-one").fingerprint(), KeyHasher.hmacSha256("pepper-one").fingerprint());
        assertNotEquals(KeyHasher.hmacSha256("pepper-one").fingerprint(),
                KeyHasher.hmacSha256("pepper-two").fingerprint());
        assertNotEquals(KeyHasher.sha256().fingerprint(), KeyHasher.hmacSha256("pepper-one").fingerprint());
        assertEquals(KeyHasher.sha256().fingerprint(), KeyHasher.hmacSha256("").fingerprint(), "empty is none");
        assertEquals(64, KeyHasher.hmacSha256("pepper-one").fingerprint().length());
        assertFalse(KeyHasher.hmacSha256("pepper-one").fingerprint().contains("pepper"));
    }
}
