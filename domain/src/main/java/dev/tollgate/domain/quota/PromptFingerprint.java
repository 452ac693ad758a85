package dev.tollgate.domain.quota;

import dev.tollgate.domain.completion.ChatMessage;
import java.util.List;

/**
 * The shape of a prompt for the §8.1 behavioural cooldown. Two prompts are <em>near-identical</em> when they are
 * equal after normalising: lower case, digits dropped, every other non-letter a word break, runs of breaks one
 * space — so "Tell me joke #1" and "tell me joke 2!" are the same, while prompts that differ in any word are not.
 * In scripts written without spaces between words (Han, kana, Thai, Lao, Khmer, Myanmar) each character is a word.
 * A prompt is <em>minimal</em> when it has at most {@code minimalWords} words in all its messages, or asks for at
 * most one output token (a probe rather than a question).
 *
 * @param hash  64-bit FNV-1a hash of the normalised text (roles included)
 * @param words words of the normalised text, roles excluded
 */
public record PromptFingerprint(long hash, int words) {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final java.util.Set<Character.UnicodeScript> UNSPACED = java.util.EnumSet.of(
            Character.UnicodeScript.HAN, Character.UnicodeScript.HIRAGANA, Character.UnicodeScript.KATAKANA,
            Character.UnicodeScript.THAI, Character.UnicodeScript.LAO, Character.UnicodeScript.KHMER,
            Character.UnicodeScript.MYANMAR);

    public static PromptFingerprint of(List<ChatMessage> messages) {
        long hash = FNV_OFFSET;
        int words = 0;
        for (ChatMessage message : messages) {
            hash = mix(mix(hash, message.role()), '\n');
            boolean inWord = false;
            String text = message.text();
            for (int i = 0; i < text.length(); ) {
                int c = text.codePointAt(i);
                i += Character.charCount(c);
                if (Character.isDigit(c)) {
                    continue;
                }
                if (Character.isLetter(c)) {
                    // Scripts written without spaces between words (Chinese, Japanese, Thai, …): each character
                    // counts as a word, or every ordinary question in them would be "minimal" (an audit: 100
                    // varied Chinese prompts a minute set off the cooldown; the same in English did not).
                    boolean unspaced = UNSPACED.contains(Character.UnicodeScript.of(c));
                    if ((!inWord || unspaced) && words > 0) {
                        hash = mix(hash, ' ');
                    }
                    if (!inWord || unspaced) {
                        words++;
                    }
                    inWord = !unspaced;
                    hash = mix(hash, Character.toLowerCase(c));
                } else {
                    inWord = false;
                }
            }
        }
        return new PromptFingerprint(hash, words);
    }

    public boolean minimal(int minimalWords, Integer maxTokens) {
        return words <= minimalWords || (maxTokens != null && maxTokens <= 1);
    }

    private static long mix(long hash, String text) {
        for (int i = 0; i < text.length(); i++) {
            hash = mix(hash, text.charAt(i));
        }
        return hash;
    }

    private static long mix(long hash, int codePoint) {
        hash ^= codePoint;
        return hash * FNV_PRIME;
    }
}
