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
        return new KeyHash(hashText(key.reveal())); // a raw key is ASCII: its UTF-8 bytes are its ASCII bytes
    }

    /**
     * What tells this hasher from one with another pepper, or none: the hash of a fixed text. Kept with the keys, it
     * lets a gateway or operator CLI started with another pepper be refused before it issues keys that never match
     * (an audit, 2026-11-29: such keys were printed and then answered 401). It reveals no more of the pepper than a
     * stored key hash does, except to someone who guesses the pepper itself.
     */
    public String fingerprint() {
        return hashText("tollgate:key-hasher-check:v1");
    }

    private String hashText(String text) {
        if (pepper == null) {
            return Sha256.hex(text);
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(pepper, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is part of every JDK", e);
        }
    }
}
