package dev.tollgate.domain.account;

/**
 * Value object: a stored password hash in the PHC string format, e.g.
 * {@code $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>}; its parameters travel with it, so stronger ones can be
 * chosen later without invalidating existing hashes.
 */
public record PasswordHash(String encoded) {

    public PasswordHash {
        if (encoded == null || !encoded.startsWith("$") || encoded.length() > 512) {
            throw new IllegalArgumentException("a password hash is a PHC string");
        }
    }
}
