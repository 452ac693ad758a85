package dev.tollgate.domain.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.completion.ChatMessage;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PromptFingerprintTest {

    private static PromptFingerprint of(String... userTexts) {
        return PromptFingerprint.of(java.util.Arrays.stream(userTexts)
                .map(t -> new ChatMessage("user", t, "{}")).toList());
    }

    @Test
    void promptsThatDifferOnlyInCaseDigitsPunctuationAndSpacingAreNearIdentical() {
        PromptFingerprint a = of("Tell me joke #1, please.");
        assertEquals(a, of("tell   me joke 2 please!"));
        assertEquals(a, of("TELL ME JOKE (1234) -- PLEASE"));
        assertEquals(4, a.words());
    }

    @Test
    void anyDifferentWordMakesAnotherPrompt() {
        assertNotEquals(of("tell me a joke").hash(), of("tell me a story").hash());
        assertNotEquals(of("tellme a joke").hash(), of("tell me a joke").hash());
        assertNotEquals(PromptFingerprint.of(List.of(new ChatMessage("system", "tell me a joke", "{}"))).hash(),
                of("tell me a joke").hash(), "roles count");
    }

    @Test
    void variedPromptsRarelyCollide() {
        Random random = new Random(3);
        Set<Long> hashes = new HashSet<>();
        String[] words = {"alpha", "beta", "gamma", "delta", "river", "cloud", "stone", "light", "paper", "green"};
        for (int i = 0; i < 100_000; i++) {
            StringBuilder prompt = new StringBuilder();
            for (int w = 0; w < 8; w++) {
                prompt.append(words[random.nextInt(words.length)]).append(' ');
            }
            hashes.add(of(prompt.toString()).hash());
        }
        assertTrue(hashes.size() > 95_000, "distinct prompts keep distinct fingerprints: " + hashes.size());
    }

    @Test
    void minimalPromptsAreShortOrAskForOneToken() {
        assertTrue(of("hi").minimal(2, null));
        assertTrue(of("ping 42 !").minimal(2, null));
        assertFalse(of("what is the capital of France").minimal(2, null));
        assertTrue(of("what is the capital of France").minimal(2, 1));
        assertFalse(of("what is the capital of France").minimal(2, 2));
        // Scripts without spaces between words: a character is a word (an audit found ordinary Chinese questions
        // counted as one or two words, so minimal).
        assertFalse(of("我想知道量子计算的应用，上海的历史文化也很重要吗？").minimal(2, null));
        assertEquals(23, of("我想知道量子计算的应用，上海的历史文化也很重要吗？").words());
        assertFalse(of("東京の天気はどうですか").minimal(2, null));
        assertTrue(of("你好").minimal(2, null));
        assertEquals(3, of("GPU 你好").words());
        assertNotEquals(of("我想知道").hash(), of("我想知").hash());
        assertEquals(of("我想 知道！").hash(), of("我想知道").hash(), "spacing between characters changes nothing");
    }
}
