package dev.tollgate.domain.session;

import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Sha256;
import java.util.HexFormat;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * Value object: the secret id of a dashboard session, 256 random bits as 64 hex characters, carried only in the
 * browser's cookie. The server keeps its SHA-256 ({@link #hash()}), so a leaked session table opens no session.
 */
public final class SessionToken {

    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
    private final String text;

    private SessionToken(String text) {
        this.text = text;
    }

    /** A new token; {@code random} must be a cryptographically strong generator (SecureRandom). */
    public static SessionToken generate(RandomGenerator random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return new SessionToken(HexFormat.of().formatHex(bytes));
    }

    /** Reads a cookie's value; empty for anything not shaped like a token. */
    public static Optional<SessionToken> parse(String text) {
        return text != null && HEX64.matcher(text).matches() ? Optional.of(new SessionToken(text)) : Optional.empty();
    }

    /** What the server stores and looks sessions up by. */
    public KeyHash hash() {
        return new KeyHash(Sha256.hex(text));
    }

    /** The cookie value; only the HTTP adapter writes it, into the {@code Set-Cookie} header. */
    public String reveal() {
        return text;
    }

    @Override
    public String toString() {
        return "SessionToken[***]";
    }
}
