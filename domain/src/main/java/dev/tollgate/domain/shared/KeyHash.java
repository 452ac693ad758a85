package dev.tollgate.domain.shared;

import java.util.Optional;
import java.util.regex.Pattern;

/** Value object: the external identifier of a key, 64 lowercase hex characters of a hash of the raw key (§2.1). */
public record KeyHash(String hex) {

    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

    public KeyHash {
        if (hex == null || !HEX64.matcher(hex).matches()) {
            throw new IllegalArgumentException("a key hash is 64 lowercase hex characters");
        }
    }

    /** Reads a hash from a path segment; anything that is not 64 hex characters is no hash at all. */
    public static Optional<KeyHash> parse(String candidate) {
        if (candidate == null) {
            return Optional.empty();
        }
        String lower = candidate.toLowerCase(java.util.Locale.ROOT);
        return HEX64.matcher(lower).matches() ? Optional.of(new KeyHash(lower)) : Optional.empty();
    }

    @Override
    public String toString() {
        return hex;
    }
}
