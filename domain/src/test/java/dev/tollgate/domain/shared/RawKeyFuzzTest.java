package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * G17 fuzz target: the key parser and its checksum. Regression mode (every build) runs the inputs under
 * {@code src/test/resources/dev/tollgate/domain/shared/RawKeyFuzzTestInputs/}; bench/fuzz.sh fuzzes it.
 */
class RawKeyFuzzTest {

    /**
     * Any text: parsing never throws, and a key it accepts is exactly the text, of the kind asked for, and parses
     * again to the same key; a generated key always parses; a generated key with one character changed never does.
     */
    @FuzzTest(maxDuration = "10m")
    void parseAcceptsOnlyWellFormedKeysWithTheirChecksum(FuzzedDataProvider data) {
        KeyKind kind = data.pickValue(KeyKind.values());
        switch (data.consumeInt(0, 2)) {
            case 0 -> {
                RawKey key = RawKey.generate(kind, new SplittableRandom(data.consumeLong()));
                assertEquals(Optional.of(key), RawKey.parse(key.reveal(), kind), "a generated key parses");
                String changed = changeOne(key.reveal(), data);
                if (!changed.equals(key.reveal())) {
                    assertEquals(Optional.empty(), RawKey.parse(changed, kind),
                            "a key with one character changed is refused: " + changed);
                }
            }
            case 1 -> {
                // Near a real key: the fuzzer edits what follows the prefix (the checksum must still hold).
                String candidate = kind.prefix() + data.consumeRemainingAsString();
                check(candidate, kind);
            }
            default -> check(data.consumeRemainingAsString(), kind);
        }
    }

    private static void check(String candidate, KeyKind kind) {
        Optional<RawKey> parsed = RawKey.parse(candidate, kind);
        parsed.ifPresent(key -> {
            assertEquals(candidate, key.reveal());
            assertEquals(kind, key.kind());
            assertEquals(parsed, RawKey.parse(key.reveal(), kind));
            assertTrue(key.label().startsWith(kind.prefix()) && key.label().contains("..."));
            assertTrue(!key.toString().contains(candidate), "toString never reveals the key");
        });
        KeyKind other = kind == KeyKind.REGULAR ? KeyKind.MANAGEMENT : KeyKind.REGULAR;
        assertTrue(parsed.isEmpty() || RawKey.parse(candidate, other).isEmpty(), "a key has one kind");
    }

    private static String changeOne(String key, FuzzedDataProvider data) {
        int at = data.consumeInt(0, key.length() - 1);
        char replacement = data.consumeChar();
        return key.substring(0, at) + replacement + key.substring(at + 1);
    }
}
