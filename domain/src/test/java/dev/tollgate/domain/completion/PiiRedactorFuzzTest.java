package dev.tollgate.domain.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.List;

/**
 * G17 fuzz target: the public playground's redaction of personal data, which anyone may send text to. The fuzzer's
 * text is repeated up to the playground's prompt limit (65,536 characters), so that matching which grows faster than
 * the text shows as an input slower than bench/fuzz.sh's one second. Inputs: {@code PiiRedactorFuzzTestInputs/}.
 */
class PiiRedactorFuzzTest {

    /** The playground's default {@code max-prompt-chars}. */
    private static final int PROMPT_LIMIT = 65_536;

    private final PiiRedactor redactor = new PiiRedactor();

    static {
        if (System.getenv("JAZZER_FUZZ") != null) {
            // Fuzzing: the regex engine is compiled by the JIT before the first input is timed. Cold and under the
            // fuzzer's instrumentation, the first inputs of 2 KiB took a second each (4 executions a second), while
            // the same inputs take 10 ms in the build (the regression input timeout-6a5895…, kept).
            PiiRedactor warm = new PiiRedactor();
            String text = "Mail jane.doe@example.com or \"a b\"@[192.168.0.1], call +1 415-555-0132 or 00 44 20 7946 0958, "
                    + "card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, SSN 123-45-6789. ";
            for (int i = 0; i < 300; i++) {
                warm.apply(text.repeat(1 + i % 16));
            }
        }
    }

    @DictionaryEntries({"@", ".com", "xn--", "+1 ", "00", "(0)", "-", " ", "DE", "GB82", "4111", "ssn", "SSN ",
            "social security", "&#64;", "&#x40;", "&commat;", "\\u0040", "\"", "[", "]", "IPv6:", "tel:", "card"})
    @FuzzTest(maxDuration = "10m")
    void redactsAnyTextWithoutFailingOrSlowingDown(FuzzedDataProvider data) {
        int copies = data.consumeInt(1, 64);
        int pieces = data.consumeInt(1, 4);
        String unit = data.consumeRemainingAsString();
        if (unit.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < copies && text.length() + unit.length() <= PROMPT_LIMIT; i++) {
            text.append(unit);
        }
        String prompt = text.length() == 0 ? unit.substring(0, Math.min(unit.length(), PROMPT_LIMIT)) : text.toString();
        String redacted = redactor.apply(prompt);
        assertTrue(redacted.length() <= prompt.length() * 7L + 7, "a placeholder replaces at least one character");
        assertEquals(redacted, redactor.apply(prompt), "the same text is redacted the same way");

        // The same text in pieces (a message's text parts): one output piece for each, never an exception.
        List<String> split = new ArrayList<>();
        int at = 0;
        for (int i = 1; i < pieces; i++) {
            int end = at + (prompt.length() - at) / 2;
            split.add(prompt.substring(at, end));
            at = end;
        }
        split.add(prompt.substring(at));
        assertEquals(split.size(), redactor.applyJoined(split).size());
    }
}
