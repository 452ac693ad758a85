package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class RawKeyTest {

    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    /** A key whose CRC32 checksum was computed independently (Python zlib.crc32, base62). */
    private static final String KNOWN_REGULAR = "gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W";
    private static final String KNOWN_MANAGEMENT = "gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV";

    private static int keyLength(KeyKind kind) {
        return kind.prefix().length() + RawKey.RANDOM_LENGTH + RawKey.CHECKSUM_LENGTH;
    }

    private static List<RawKey> sample(KeyKind kind, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<RawKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(RawKey.generate(kind, random));
        }
        return keys;
    }

    @ParameterizedTest
    @EnumSource(KeyKind.class)
    void generatedKeysParseBackToAnEqualKeyOfTheSameKind(KeyKind kind) {
        for (RawKey key : sample(kind, 1_000, 7)) {
            Optional<RawKey> parsed = RawKey.parse(key.reveal(), kind);
            assertTrue(parsed.isPresent(), key.reveal());
            assertEquals(key, parsed.get());
            assertEquals(key.hashCode(), parsed.get().hashCode());
            assertEquals(key.reveal(), parsed.get().reveal());
            assertEquals(kind, parsed.get().kind());
        }
    }

    @ParameterizedTest
    @EnumSource(KeyKind.class)
    void generatedKeysHavePrefixFixedLengthAndOnlyBase62AfterThePrefix(KeyKind kind) {
        for (RawKey key : sample(kind, 1_000, 11)) {
            String value = key.reveal();
            assertTrue(value.startsWith(kind.prefix()), value);
            assertEquals(keyLength(kind), value.length(), value);
            assertTrue(value.substring(kind.prefix().length()).chars().allMatch(c -> BASE62.indexOf(c) >= 0), value);
        }
        assertEquals(41, keyLength(KeyKind.REGULAR));
        assertEquals(42, keyLength(KeyKind.MANAGEMENT));
    }

    @Test
    void theRandomPartUsesTheWholeBase62Alphabet() {
        Set<Character> seen = new HashSet<>();
        for (RawKey key : sample(KeyKind.REGULAR, 2_000, 13)) {
            String random = key.reveal().substring(3, 3 + RawKey.RANDOM_LENGTH);
            random.chars().forEach(c -> seen.add((char) c));
        }
        assertEquals(62, seen.size(), "characters drawn: " + seen);
    }

    @Test
    void keysWithAnIndependentlyComputedChecksumParse() {
        RawKey regular = RawKey.parse(KNOWN_REGULAR, KeyKind.REGULAR).orElseThrow();
        RawKey management = RawKey.parse(KNOWN_MANAGEMENT, KeyKind.MANAGEMENT).orElseThrow();
        assertEquals(KNOWN_REGULAR, regular.reveal());
        assertEquals(KNOWN_MANAGEMENT, management.reveal());
    }

    @Test
    void everySingleCharacterMutationIsRejected(TestReporter reporter) {
        int keys = 2_000;
        long mutations = 0;
        long rejected = 0;
        List<String> accepted = new ArrayList<>();
        SplittableRandom choice = new SplittableRandom(99);
        for (KeyKind kind : KeyKind.values()) {
            for (RawKey key : sample(kind, keys / 2, kind.ordinal() + 1000L)) {
                char[] original = key.reveal().toCharArray();
                for (int position = 0; position < original.length; position++) {
                    char[] mutated = original.clone();
                    mutated[position] = differentBase62Char(original[position], choice);
                    mutations++;
                    String candidate = new String(mutated);
                    if (RawKey.parse(candidate, kind).isEmpty()) {
                        rejected++;
                    } else if (accepted.size() < 10) {
                        accepted.add(key.reveal() + " -> " + candidate);
                    }
                }
            }
        }
        String report = String.format("single-character mutations: %d of %d rejected over %d keys",
                rejected, mutations, keys);
        reporter.publishEntry("checksum", report);
        System.out.println(report);
        assertEquals(keys * 41L + keys / 2, mutations, "every position of every key was mutated");
        // ≥ 99.99 % rejected, in integers: rejected / mutations >= 9999 / 10000.
        assertTrue(rejected * 10_000L >= mutations * 9_999L, report + "; accepted e.g. " + accepted);
        // A CRC32 catches every single-symbol error, so in practice nothing gets through.
        assertEquals(mutations, rejected, report + "; accepted e.g. " + accepted);
    }

    @Test
    void everyAlternativeCharacterAtEveryPositionOfTheKnownKeyIsRejected() {
        char[] original = KNOWN_REGULAR.toCharArray();
        int tried = 0;
        for (int position = 0; position < original.length; position++) {
            for (char replacement : BASE62.toCharArray()) {
                if (replacement == original[position]) {
                    continue;
                }
                char[] mutated = original.clone();
                mutated[position] = replacement;
                tried++;
                String candidate = new String(mutated);
                assertTrue(RawKey.parse(candidate, KeyKind.REGULAR).isEmpty(), candidate);
            }
        }
        assertTrue(tried > 41 * 60, "tried " + tried);
    }

    @Test
    void adjacentTranspositionsAreRejected(TestReporter reporter) {
        long swaps = 0;
        long rejected = 0;
        for (RawKey key : sample(KeyKind.REGULAR, 2_000, 5)) {
            char[] original = key.reveal().toCharArray();
            for (int i = 0; i + 1 < original.length; i++) {
                if (original[i] == original[i + 1]) {
                    continue;
                }
                char[] swapped = original.clone();
                swapped[i] = original[i + 1];
                swapped[i + 1] = original[i];
                swaps++;
                if (RawKey.parse(new String(swapped), KeyKind.REGULAR).isEmpty()) {
                    rejected++;
                }
            }
        }
        reporter.publishEntry("transpositions", String.format("%d of %d rejected", rejected, swaps));
        assertTrue(rejected * 10_000L >= swaps * 9_999L, rejected + " of " + swaps + " transpositions rejected");
    }

    private static char differentBase62Char(char current, SplittableRandom random) {
        int index = BASE62.indexOf(current);
        if (index < 0) {
            return BASE62.charAt(random.nextInt(BASE62.length()));
        }
        return BASE62.charAt((index + 1 + random.nextInt(BASE62.length() - 1)) % BASE62.length());
    }

    @Test
    void aKeyOfTheOtherKindIsRejected() {
        for (RawKey regular : sample(KeyKind.REGULAR, 200, 21)) {
            assertTrue(RawKey.parse(regular.reveal(), KeyKind.MANAGEMENT).isEmpty(), regular.reveal());
        }
        for (RawKey management : sample(KeyKind.MANAGEMENT, 200, 22)) {
            assertTrue(RawKey.parse(management.reveal(), KeyKind.REGULAR).isEmpty(), management.reveal());
        }
        assertTrue(RawKey.parse(KNOWN_REGULAR, KeyKind.MANAGEMENT).isEmpty());
        assertTrue(RawKey.parse(KNOWN_MANAGEMENT, KeyKind.REGULAR).isEmpty());
    }

    @Test
    void swappingThePrefixOfAValidKeyIsRejected() {
        // Same 38 characters after the prefix, other prefix: right length and alphabet, but the checksum
        // covers the prefix too.
        String body = KNOWN_REGULAR.substring(3);
        assertEquals(42, ("gpm-" + body).length());
        assertTrue(RawKey.parse("gpm-" + body, KeyKind.MANAGEMENT).isEmpty());
        String managementBody = KNOWN_MANAGEMENT.substring(4);
        assertEquals(41, ("gp-" + managementBody).length());
        assertTrue(RawKey.parse("gp-" + managementBody, KeyKind.REGULAR).isEmpty());
        assertTrue(RawKey.parse("GP-" + body, KeyKind.REGULAR).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "gp-",
            "gpm-",
            "garbage",
            "Bearer gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W",
            " gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W",
            "gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W ",
            "gp-0123456789abcdefghijABCDEFGHIJkl1p3v7",
            "gp-0123456789abcdefghijABCDEFGHIJkl1p3v7Wx",
            "gp-0123456789abcdefghij-BCDEFGHIJkl1p3v7W",
            "gp-0123456789abcdefghij_BCDEFGHIJkl1p3v7W",
            "gp-0123456789abcdefghijÄBCDEFGHIJkl1p3v7W",
    })
    void malformedCandidatesAreRejected(String candidate) {
        assertTrue(RawKey.parse(candidate, KeyKind.REGULAR).isEmpty(), candidate);
    }

    @Test
    void nullIsRejected() {
        assertTrue(RawKey.parse(null, KeyKind.REGULAR).isEmpty());
        assertTrue(RawKey.parse(null, KeyKind.MANAGEMENT).isEmpty());
    }

    @Test
    void labelShowsThePrefixAnEllipsisAndTheLastFour() {
        RawKey regular = RawKey.parse(KNOWN_REGULAR, KeyKind.REGULAR).orElseThrow();
        assertEquals("gp-...3v7W", regular.label());
        RawKey management = RawKey.parse(KNOWN_MANAGEMENT, KeyKind.MANAGEMENT).orElseThrow();
        assertEquals("gpm-...V9UV", management.label());
    }

    /** Where keys must never be sent (a URL): anything that starts like one, valid or not, not inside a word. */
    @Test
    void aKeyStartsInTextWhereverItStandsButNotInsideAWord() {
        for (String text : List.of(KNOWN_REGULAR, "auth=x " + KNOWN_MANAGEMENT, "\"" + KNOWN_REGULAR + "\"",
                "token:gp-anything", "gpm-x")) {
            assertTrue(RawKey.startsIn(text), text);
        }
        for (String text : List.of("gpt-4o", "gp-", "xgp-abc", "my_gpu", "")) {
            assertFalse(RawKey.startsIn(text), text);
        }
        assertFalse(RawKey.startsIn(null));
    }

    /** In text quoted back to a client: a key, or a piece of 16+ characters of one, masked; shorter runs stay. */
    @Test
    void keysAndLongPiecesOfThemAreMaskedInText() {
        assertEquals("got 'gp-[masked]', 'gpm-[masked]', 'xgp-[masked]', cut 'gp-[masked]…'",
                RawKey.maskedIn("got '" + KNOWN_REGULAR + "', '" + KNOWN_MANAGEMENT + "', 'x" + KNOWN_REGULAR
                        + "', cut '" + KNOWN_REGULAR.substring(0, 19) + "…'"));
        assertEquals("model 'acme/gp-superlarge1'", RawKey.maskedIn("model 'acme/gp-superlarge1'"));
        assertEquals(null, RawKey.maskedIn(null));
    }

    @ParameterizedTest
    @EnumSource(KeyKind.class)
    void labelNeverShowsTheWholeKeyNorItsHiddenMiddle(KeyKind kind) {
        int prefix = kind.prefix().length();
        for (RawKey key : sample(kind, 500, 31)) {
            String value = key.reveal();
            String label = key.label();
            assertEquals(kind.prefix() + "..." + value.substring(value.length() - 4), label);
            assertEquals(prefix + 7, label.length());
            assertFalse(label.contains(value));
            // Nothing of the 32 random characters appears: the last four are the checksum's.
            String hidden = value.substring(prefix, value.length() - 4);
            assertEquals(34, hidden.length());
            assertFalse(label.contains(hidden.substring(0, 3)), label);
        }
    }

    @ParameterizedTest
    @EnumSource(KeyKind.class)
    void toStringDoesNotRevealTheSecret(KeyKind kind) {
        int prefix = kind.prefix().length();
        for (RawKey key : sample(kind, 500, 41)) {
            String value = key.reveal();
            String shown = key.toString();
            assertFalse(shown.contains(value), shown);
            assertFalse(shown.contains(value.substring(prefix + 3, prefix + 3 + 8)), shown);
            assertTrue(shown.contains(key.label()), shown);
            assertFalse(String.valueOf(key).contains(value));
            assertFalse(List.of(key).toString().contains(value));
        }
    }

    @Test
    void oneHundredThousandGeneratedKeysAndTheirHashesAreDistinct() {
        SecureRandom random = new SecureRandom();
        KeyHasher hasher = KeyHasher.sha256();
        int count = 100_000;
        Set<String> values = new HashSet<>(count * 2);
        Set<KeyHash> hashes = new HashSet<>(count * 2);
        for (int i = 0; i < count; i++) {
            RawKey key = RawKey.generate(KeyKind.REGULAR, random);
            assertTrue(values.add(key.reveal()), "collision: " + key.label());
            assertTrue(hashes.add(hasher.hash(key)), "hash collision: " + key.label());
        }
        assertEquals(count, values.size());
        assertEquals(count, hashes.size());
    }

    @Test
    void equalityFollowsTheValue() {
        RawKey a = RawKey.parse(KNOWN_REGULAR, KeyKind.REGULAR).orElseThrow();
        RawKey b = RawKey.parse(KNOWN_REGULAR, KeyKind.REGULAR).orElseThrow();
        assertEquals(a, b);
        assertNotEquals(a, RawKey.parse(KNOWN_MANAGEMENT, KeyKind.MANAGEMENT).orElseThrow());
        assertNotEquals(a, KNOWN_REGULAR);
    }
}
