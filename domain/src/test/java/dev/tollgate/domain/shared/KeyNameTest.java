package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyNameTest {

    private static DomainRuleViolation refused(String value) {
        DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> new KeyName(value));
        assertEquals("name", violation.field());
        return violation;
    }

    @Test
    void aChosenNameHoldsNoKeyNorAPieceOfOneButAStoredOneStillReads() {
        String key = RawKey.generate(KeyKind.REGULAR, new java.util.Random(7)).reveal();
        for (String value : List.of(key, "copy of " + key, "gpm-0123456789abcdef", "x gp-ABCDEFGHIJKLMNOPQRS")) {
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> KeyName.chosen(value));
            assertEquals("name", violation.field());
            assertTrue(violation.getMessage().startsWith("name must not contain an API key"), violation.getMessage());
        }
        for (String value : List.of("gp-production", "acme/gp-turbo", "gp-0123456789abcde", "gpx-0123456789abcdefgh")) {
            assertEquals(value, KeyName.chosen(value).value());
        }
        assertEquals(key, new KeyName(key).value(), "a name stored before the rule is still read");
    }

    @Test
    void nameIsRequired() {
        assertEquals("name is required", refused(null).getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "   ", "\t", "\n", " \t\r\n ", "\u2003", "\u3000"})
    void blankNamesAreRefused(String value) {
        assertEquals("name must not be empty", refused(value).getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u00a0", "\u200b", "\u2060\u00a0", " \ufeff ", "\u200b\u3000\u200d"})
    void namesOfOnlyInvisibleCharactersAreRefusedAsEmpty(String value) {
        assertEquals("name must not be empty (it holds only spaces or invisible characters)",
                refused(value).getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u202eb", "\u202aleft", "x\u2066y\u2069", "x\u2067"})
    void bidirectionalControlsAreRefused(String value) {
        assertEquals("name must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)",
                refused(value).getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u00a0pad\u00a0", "\u200bpad", "pad\ufeff", " \u3000pad\u2060 "})
    void spacesOfAnyKindAroundANameAreTrimmed(String value) {
        // An audit: a no-break or zero-width space around a name was kept, so "pad" could show as another key.
        assertEquals("pad", new KeyName(value).value());
    }

    @Test
    void visibleTextAroundInvisibleCharactersIsKept() {
        assertEquals("a\u00a0b", new KeyName("a\u00a0b").value());
        assertEquals("\u05e9\u05dc\u05d5\u05dd key", new KeyName("\u05e9\u05dc\u05d5\u05dd key").value());
    }

    @Test
    void unpairedSurrogatesAreRefusedAndPairsAccepted() {
        char high = (char) 0xD800;
        char low = (char) 0xDC00;
        for (String value : new String[] {"x" + high + "y", "" + high, "x" + low, low + "" + high, "ok" + high}) {
            assertEquals("name must be valid Unicode text (it holds an unpaired surrogate escape such as \\ud800)",
                    refused(value).getMessage(), value);
        }
        String emoji = "key " + high + low; // U+10000, a pair: one code point
        assertEquals(emoji, new KeyName(emoji).value());
    }

    @Test
    void surroundingWhitespaceIsTrimmed() {
        assertEquals("prod key", new KeyName("  prod key  ").value());
        assertEquals("prod key", new KeyName("\tprod key\n").value());
        assertEquals("prod key", new KeyName("\u2003prod key\u3000").value());
        assertEquals(new KeyName("x"), new KeyName(" x "));
        assertEquals("x", new KeyName(" x ").toString());
    }

    @Test
    void oneToOneHundredTwentyEightCodePointsAreAccepted() {
        assertEquals("a", new KeyName("a").value());
        String max = "a".repeat(KeyName.MAX_LENGTH);
        assertEquals(max, new KeyName(max).value());
        assertEquals(max, new KeyName("  " + max + "  ").value(), "length counts after trimming");
    }

    @Test
    void moreThanOneHundredTwentyEightCodePointsAreRefused() {
        assertEquals("name must be at most 128 characters", refused("a".repeat(129)).getMessage());
        refused("a".repeat(10_000));
    }

    @Test
    void lengthCountsCodePointsNotUtf16Units() {
        String emoji = "\uD83D\uDD11"; // one code point, two chars
        String max = emoji.repeat(128);
        assertEquals(256, max.length());
        assertEquals(max, new KeyName(max).value());
        refused(emoji.repeat(129));
        assertEquals("é".repeat(128), new KeyName("é".repeat(128)).value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "a\nb", "a\tb", "a\rb", "a\u001bb", "a\u007fb", "a\u0085b", "a\u009fb",
            "\u0000", "\u0007name"})
    void controlCharactersAreRefused(String value) {
        assertEquals("name must not contain control characters", refused(value).getMessage());
    }

    @Test
    void ordinaryPunctuationAndUnicodeAreFine() {
        String value = "Prod – eu-west-1 (Ärger) #2 🚀";
        assertEquals(value, new KeyName(value).value());
    }
}
