package dev.tollgate.adapter.out.persistence.credentials;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;
import org.junit.jupiter.api.Test;

class Argon2idPasswordHasherTest {

    private final Argon2idPasswordHasher hasher = new Argon2idPasswordHasher(Argon2idPasswordHasher.DEFAULTS);

    @Test
    void aHashIsAPhcStringWithItsParametersAndAFreshSalt() {
        PasswordHash one = hasher.hash(Password.given("correct horse battery"));
        PasswordHash two = hasher.hash(Password.given("correct horse battery"));
        assertTrue(one.encoded().startsWith("$argon2id$v=19$m=19456,t=2,p=1$"), one.encoded());
        assertNotEquals(one, two, "each hash has its own salt");
        assertFalse(one.encoded().contains("correct horse"));
    }

    @Test
    void verifiesTheRightPasswordOnly() {
        PasswordHash stored = hasher.hash(Password.given("correct horse battery"));
        assertTrue(hasher.matches(Password.given("correct horse battery"), stored));
        assertFalse(hasher.matches(Password.given("correct horse batterY"), stored));
        assertFalse(hasher.matches(Password.given(""), stored));
        PasswordHash unicode = hasher.hash(Password.given("pässwörd ✓ 密码"));
        assertTrue(hasher.matches(Password.given("pässwörd ✓ 密码"), unicode));
    }

    @Test
    void readsHashesMadeWithOtherParameters() {
        Argon2idPasswordHasher cheap = new Argon2idPasswordHasher(new Argon2idPasswordHasher.Parameters(64, 1, 1));
        PasswordHash old = cheap.hash(Password.given("an older password"));
        assertTrue(hasher.matches(Password.given("an older password"), old));
    }

    @Test
    void matchesTheRfc9106Algorithm() {
        // Cross-check: the stored hash equals Argon2id computed directly over the stored salt.
        PasswordHash stored = hasher.hash(Password.given("pw0123456789"));
        String[] parts = stored.encoded().split("\\$");
        byte[] salt = java.util.Base64.getDecoder().decode(parts[4]);
        byte[] expected = new byte[32];
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id).withVersion(19).withMemoryAsKB(19456)
                .withIterations(2).withParallelism(1).withSalt(salt).build());
        generator.generateBytes("pw0123456789".getBytes(StandardCharsets.UTF_8), expected);
        assertTrue(HexFormat.of().formatHex(java.util.Base64.getDecoder().decode(parts[5]))
                .equals(HexFormat.of().formatHex(expected)));
    }

    @Test
    void unreadableOrOutrageousStoredHashesNeverMatch() {
        for (String bad : new String[] {"$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
                "$argon2id$v=16$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
                "$argon2id$v=19$m=4194304,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
                "$argon2id$v=19$m=19456,t=1000,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
                "$argon2id$v=19$m=19456,t=2,p=1$!!!$aGFzaGhhc2hoYXNoaGFzaA", "$fake$1$2", "$"}) {
            assertFalse(hasher.matches(Password.given("anything at all"), new PasswordHash(bad)), bad);
        }
    }

    @Test
    void parametersAreBounded() {
        assertThrows(IllegalArgumentException.class, () -> new Argon2idPasswordHasher.Parameters(4, 2, 1));
        assertThrows(IllegalArgumentException.class, () -> new Argon2idPasswordHasher.Parameters(19456, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Argon2idPasswordHasher.Parameters(19456, 2, 0));
    }
}
