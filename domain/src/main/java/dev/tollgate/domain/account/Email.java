package dev.tollgate.domain.account;

import dev.tollgate.domain.shared.DomainRuleViolation;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/** Value object: an account's e-mail address, trimmed and lower-cased so that one address is one account. */
public record Email(String value) {

    private static final Pattern SHAPE = Pattern.compile("[^\\s@]+@[^\\s@]+\\.[^\\s@]+");
    private static final int MAX_LENGTH = 254;

    public Email {
        if (value == null) {
            throw new DomainRuleViolation("email", "an e-mail address is required");
        }
        value = value.trim().toLowerCase(Locale.ROOT);
        if (value.length() > MAX_LENGTH || !SHAPE.matcher(value).matches()) {
            throw new DomainRuleViolation("email", "'" + value + "' is not an e-mail address");
        }
    }

    /**
     * A stand-in for the address where it must not appear in clear (traffic-limit bucket names, which may live in
     * Redis): the first 128 bits of its SHA-256, in hex.
     */
    public String digest() {
        return digestOf(value);
    }

    /** {@link #digest()} of text typed as an address, whether or not it is one (trimmed and lower-cased first). */
    public static String digestOf(String typed) {
        String normalised = typed == null ? "" : typed.trim().toLowerCase(Locale.ROOT);
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(normalised.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
