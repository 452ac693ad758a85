package dev.tollgate.adapter.out.persistence.credentials;

import dev.tollgate.application.port.out.PasswordHasher;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Security adapter: {@link PasswordHasher} with Argon2id (RFC 9106) from BouncyCastle, stored as a PHC string
 * ({@code $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>}, unpadded base64). A 16-byte random salt per hash, a
 * 32-byte output, constant-time comparison. Hashes keep their own parameters, so raising the cost later leaves
 * older hashes readable; parameters read from a stored hash are bounded, so a tampered row cannot make a sign-in
 * allocate gigabytes.
 */
public final class Argon2idPasswordHasher implements PasswordHasher {

    /** OWASP's first Argon2id choice: 19 MiB, 2 passes, 1 lane — about 50 ms on one core of a small server. */
    public static final Parameters DEFAULTS = new Parameters(19 * 1024, 2, 1);

    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final int MAX_MEMORY_KIB = 256 * 1024;
    private static final int MAX_ITERATIONS = 16;
    private static final int MAX_PARALLELISM = 8;
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64_DECODER = Base64.getDecoder();

    private final Parameters parameters;
    private final SecureRandom random = new SecureRandom();

    public Argon2idPasswordHasher(Parameters parameters) {
        this.parameters = parameters;
    }

    @Override
    public PasswordHash hash(Password password) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        byte[] hash = derive(password, salt, parameters, HASH_BYTES);
        return new PasswordHash("$argon2id$v=19$m=" + parameters.memoryKib() + ",t=" + parameters.iterations()
                + ",p=" + parameters.parallelism() + "$" + B64.encodeToString(salt) + "$" + B64.encodeToString(hash));
    }

    @Override
    public boolean matches(Password password, PasswordHash stored) {
        Parsed parsed = parse(stored.encoded());
        if (parsed == null) {
            // Unreadable: still spend the usual time, so that the answer's timing tells nothing.
            derive(password, new byte[SALT_BYTES], parameters, HASH_BYTES);
            return false;
        }
        byte[] actual = derive(password, parsed.salt(), parsed.parameters(), parsed.hash().length);
        return MessageDigest.isEqual(actual, parsed.hash());
    }

    private static byte[] derive(Password password, byte[] salt, Parameters p, int length) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(p.memoryKib())
                .withIterations(p.iterations())
                .withParallelism(p.parallelism())
                .withSalt(salt)
                .build();
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(params);
        byte[] secret = password.reveal().getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[length];
        try {
            generator.generateBytes(secret, out);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
        return out;
    }

    private record Parsed(Parameters parameters, byte[] salt, byte[] hash) {
    }

    private static Parsed parse(String encoded) {
        String[] parts = encoded.split("\\$", -1);
        if (parts.length != 6 || !parts[0].isEmpty() || !parts[1].equals("argon2id") || !parts[2].equals("v=19")) {
            return null;
        }
        int memory = -1;
        int iterations = -1;
        int parallelism = -1;
        for (String pair : parts[3].split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length != 2 || !kv[1].matches("\\d{1,7}")) {
                return null;
            }
            int value = Integer.parseInt(kv[1]);
            switch (kv[0]) {
                case "m" -> memory = value;
                case "t" -> iterations = value;
                case "p" -> parallelism = value;
                default -> {
                    return null;
                }
            }
        }
        if (memory < 8 || memory > MAX_MEMORY_KIB || iterations < 1 || iterations > MAX_ITERATIONS
                || parallelism < 1 || parallelism > MAX_PARALLELISM || memory < 8 * parallelism) {
            return null;
        }
        try {
            byte[] salt = B64_DECODER.decode(parts[4]);
            byte[] hash = B64_DECODER.decode(parts[5]);
            if (salt.length < 8 || hash.length < 16 || hash.length > 64) {
                return null;
            }
            return new Parsed(new Parameters(memory, iterations, parallelism), salt, hash);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Argon2id cost: memory in KiB, passes over it, lanes. */
    public record Parameters(int memoryKib, int iterations, int parallelism) {
        public Parameters {
            if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
                throw new IllegalArgumentException("Argon2 parallelism must be 1.." + MAX_PARALLELISM);
            }
            if (iterations < 1 || iterations > MAX_ITERATIONS) {
                throw new IllegalArgumentException("Argon2 iterations must be 1.." + MAX_ITERATIONS);
            }
            if (memoryKib < 8 * parallelism || memoryKib > MAX_MEMORY_KIB) {
                throw new IllegalArgumentException("Argon2 memory must be 8*parallelism.." + MAX_MEMORY_KIB + " KiB");
            }
        }
    }
}
