package dev.tollgate.domain.shared;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32;

/**
 * Value object: a raw secret key ({@code gp-…} or {@code gpm-…}) as handed to its owner exactly once.
 *
 * <p>Format (GitHub token style): prefix + {@value #RANDOM_LENGTH} base62 characters drawn from the given
 * generator (a {@code SecureRandom} in production, about 190 bits) + a {@value #CHECKSUM_LENGTH}-character
 * base62 CRC32 of everything before it. The checksum lets {@link #parse} reject a mistyped or invented key
 * without any database query. {@link #toString()} never reveals the secret.
 */
public final class RawKey {

    public static final int RANDOM_LENGTH = 32;
    public static final int CHECKSUM_LENGTH = 6;
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /** Either kind's prefix, as a regular-expression alternative. */
    private static final String PREFIXES = "(" + java.util.Arrays.stream(KeyKind.values())
            .map(kind -> java.util.regex.Pattern.quote(kind.prefix()))
            .reduce((a, b) -> a + "|" + b).orElseThrow() + ")";
    /** The start of a key: a prefix and a base62 character, not inside a longer word. */
    private static final java.util.regex.Pattern KEY_START =
            java.util.regex.Pattern.compile("(?<![A-Za-z0-9])" + PREFIXES + "[A-Za-z0-9]");
    /**
     * A key, or a piece of one long enough to matter: a prefix and {@value #PIECE_LENGTH} or more base62 characters
     * (a message that cuts what it quotes after 32 still shows that many), wherever it stands.
     */
    public static final int PIECE_LENGTH = 16;
    private static final java.util.regex.Pattern KEY_PIECE =
            java.util.regex.Pattern.compile(PREFIXES + "[A-Za-z0-9]{" + PIECE_LENGTH + ",}");

    private final KeyKind kind;
    private final String value;

    private RawKey(KeyKind kind, String value) {
        this.kind = kind;
        this.value = value;
    }

    public static RawKey generate(KeyKind kind, RandomGenerator random) {
        StringBuilder body = new StringBuilder(kind.prefix());
        for (int i = 0; i < RANDOM_LENGTH; i++) {
            body.append(BASE62.charAt(random.nextInt(BASE62.length())));
        }
        String withoutChecksum = body.toString();
        return new RawKey(kind, withoutChecksum + checksum(withoutChecksum));
    }

    /**
     * Whether {@code text} holds something that starts like a key of either kind (a prefix and a base62 character,
     * not inside a longer word), whether or not it is a valid one: for refusing keys where they must never be sent.
     */
    public static boolean startsIn(String text) {
        return text != null && KEY_START.matcher(text).find();
    }

    /** Whether {@code text} holds a key or a piece of one ({@value #PIECE_LENGTH}+ characters after a prefix). */
    public static boolean pieceIn(String text) {
        return text != null && text.contains("gp") && KEY_PIECE.matcher(text).find();
    }

    /**
     * {@code text} with every key, and every piece of one of {@value #PIECE_LENGTH} or more characters after its
     * prefix, replaced by its prefix and {@code [masked]} (a shorter run, such as a model id {@code acme/gp-turbo},
     * stays).
     */
    public static String maskedIn(String text) {
        if (text == null || !text.contains("gp")) {
            return text;
        }
        return KEY_PIECE.matcher(text).replaceAll("$1[masked]");
    }

    /** Accepts only a well-formed key of the expected kind whose checksum matches. */
    public static Optional<RawKey> parse(String candidate, KeyKind expected) {
        if (candidate == null) {
            return Optional.empty();
        }
        int length = expected.prefix().length() + RANDOM_LENGTH + CHECKSUM_LENGTH;
        if (candidate.length() != length || !candidate.startsWith(expected.prefix())) {
            return Optional.empty();
        }
        for (int i = expected.prefix().length(); i < length; i++) {
            if (BASE62.indexOf(candidate.charAt(i)) < 0) {
                return Optional.empty();
            }
        }
        String withoutChecksum = candidate.substring(0, length - CHECKSUM_LENGTH);
        if (!checksum(withoutChecksum).equals(candidate.substring(length - CHECKSUM_LENGTH))) {
            return Optional.empty();
        }
        return Optional.of(new RawKey(expected, candidate));
    }

    public KeyKind kind() {
        return kind;
    }

    /** The secret itself: only for the one create response and for hashing. */
    public String reveal() {
        return value;
    }

    /**
     * Masked display form: the prefix, an ellipsis and the last four characters (G10: "only the prefix plus the last
     * 4 chars"; the last four are checksum characters, so the label shows nothing of the random part).
     */
    public String label() {
        return kind.prefix() + "..." + value.substring(value.length() - 4);
    }

    private static String checksum(String text) {
        CRC32 crc = new CRC32();
        crc.update(text.getBytes(StandardCharsets.US_ASCII));
        long n = crc.getValue();
        char[] out = new char[CHECKSUM_LENGTH];
        for (int i = CHECKSUM_LENGTH - 1; i >= 0; i--) {
            out[i] = BASE62.charAt((int) (n % 62));
            n /= 62;
        }
        return new String(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawKey other && other.value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return "RawKey[" + label() + "]";
    }
}
