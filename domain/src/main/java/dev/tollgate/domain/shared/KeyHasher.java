package dev.tollgate.domain.shared;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Domain service: turns a raw key into its stored {@link KeyHash}.
 *
 * <p>With a server pepper it is HMAC-SHA-256(pepper, key); without one, SHA-256(key). Either way only the
 * hash is ever stored, and changing the pepper invalidates every issued key.
 */
public final class KeyHasher {

    private final byte[] pepper;

    private KeyHasher(byte[] pepper) {
        this.pepper = pepper;
    }

    public static KeyHasher sha256() {
        return new KeyHasher(null);
    }

    public static KeyHasher hmacSha256(String pepper) {
        if (pepper == null || pepper.isEmpty()) {
            return sha256();
        }
        return new KeyHasher(pepper.getBytes(StandardCharsets.UTF_8));
    }

    public KeyHash hash(RawKey key) {
        if (pepper == null) {
            return new KeyHash(Sha256.hex(key.reveal())); // a raw key is ASCII: its UTF-8 bytes are its ASCII bytes
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(pepper, "HmacSHA256"));
            return new KeyHash(HexFormat.of().formatHex(mac.doFinal(key.reveal().getBytes(StandardCharsets.US_ASCII))));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is part of every JDK", e);
        }
    }
}
