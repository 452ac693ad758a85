package dev.tollgate.domain.shared;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Value object: a server secret that signs what the gateway hands out and reads back (HMAC-SHA-256). */
public final class SigningKey {

    private static final int MIN_BYTES = 16;
    private final byte[] secret;

    private SigningKey(byte[] secret) {
        if (secret.length < MIN_BYTES) {
            throw new IllegalArgumentException("a signing key needs at least " + MIN_BYTES + " bytes");
        }
        this.secret = secret.clone();
    }

    public static SigningKey of(byte[] secret) {
        return new SigningKey(secret);
    }

    /** A configured secret (UTF-8); at least 16 bytes. */
    public static SigningKey of(String secret) {
        return new SigningKey(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** HMAC-SHA-256 of {@code message} (UTF-8), as 64 lowercase hex characters. */
    public String signHex(String message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is part of every JDK", e);
        }
    }

    /** Whether {@code signature} is the signature of {@code message}, compared in constant time. */
    public boolean verifiesHex(String message, String signature) {
        if (signature == null) {
            return false;
        }
        return MessageDigest.isEqual(signHex(message).getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public String toString() {
        return "SigningKey[***]";
    }
}
