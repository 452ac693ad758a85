package dev.tollgate.domain.shared;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;

/** SHA-256 of a text's UTF-8 bytes, in lower-case hex: what keys, sessions and opaque ids are stored or sent as. */
public final class Sha256 {

    private Sha256() {
    }

    /** The 64 hex digits of the SHA-256 of {@code text} (UTF-8). */
    public static String hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
