package dev.tollgate.adapter.out.upstream.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JtokkitTokenCounterTest {

    private static final Encoding O200K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    private final JtokkitTokenCounter counter = new JtokkitTokenCounter();

    @Test
    void textWithoutOverlongRunsIsCountedExactly() {
        String prose = "The gateway holds the cost of a request before it calls the provider. ".repeat(2_000);
        assertEquals(O200K.countTokensOrdinary(prose), counter.countText(prose));
        String word = "x".repeat(JtokkitTokenCounter.LONGEST_RUN);
        assertEquals(O200K.countTokensOrdinary(word + " " + word), counter.countText(word + " " + word));
        assertEquals(0, counter.countText(""));
    }

    @Test
    void anOverlongRunIsCountedInPiecesAtOrJustAboveTheWholeCount() {
        byte[] random = new byte[300_000];
        new Random(7).nextBytes(random);
        String[] runs = {"a".repeat(200_000), "abcdefghij".repeat(20_000), Base64.getEncoder().encodeToString(random),
            "漢字仮名交じり文".repeat(10_000), "!?.,;".repeat(40_000), "😀".repeat(5_000)};
        for (String run : runs) {
            long whole = O200K.countTokensOrdinary(run);
            long counted = counter.countText("Decode this: " + run + " please");
            long around = O200K.countTokensOrdinary("Decode this: ") + O200K.countTokensOrdinary(" please");
            assertTrue(counted >= whole, run.substring(0, 10) + ": " + counted + " < " + whole);
            assertTrue(counted <= whole + around + whole / 50, run.substring(0, 10) + ": " + counted + " vs " + whole);
        }
    }

    @Test
    void aCutNeverSplitsACharacterInTwo() {
        // Emoji are surrogate pairs; with one letter before them every 512th char is the second half of a pair, and
        // a cut there would count two lone halves (replacement characters) instead of the emoji.
        for (String run : new String[]{"😀".repeat(2_000), "a" + "😀".repeat(2_000)}) {
            long whole = O200K.countTokensOrdinary(run);
            long counted = counter.countText(run);
            assertTrue(counted >= whole && counted <= whole + 8, counted + " vs " + whole);
        }
    }
}
