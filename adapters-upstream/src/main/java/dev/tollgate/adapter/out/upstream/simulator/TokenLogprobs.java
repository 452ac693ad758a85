package dev.tollgate.adapter.out.upstream.simulator;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * The simulator's token log probabilities (asked for with {@code logprobs: true}): one entry of OpenAI's
 * {@code logprobs.content} per emitted token — {@code token}, {@code logprob}, {@code bytes} and
 * {@code top_logprobs} — deterministic from the prompt and the token's position, like the text. The emitted token is
 * the most likely one and leads its {@code top_logprobs}; the alternatives are other words of the simulator's
 * vocabulary, each less likely than the one before. Log probabilities are in thousandths, written exactly.
 */
final class TokenLogprobs {

    private TokenLogprobs() {
    }

    /**
     * The {@code logprobs.content} array (as JSON) for one emitted token.
     *
     * @param top how many {@code top_logprobs} to list (0–20)
     */
    static String of(String token, int seed, int position, int top) {
        int thousandths = 1 + Math.floorMod(seed * 31 + position * 7919, 900); // the token: -0.001 to -0.900
        StringBuilder json = new StringBuilder(96 + top * 64).append("[{");
        candidate(json, token, thousandths);
        json.append(",\"top_logprobs\":[");
        String lead = token.startsWith(" ") ? " " : "";
        int listed = 0;
        for (int n = 0; listed < top && n <= SimulatorModelProvider.WORDS.length; n++) {
            String alternative = n == 0 ? token
                    : lead + SimulatorModelProvider.WORDS[Math.floorMod(seed + position * 31 + n,
                            SimulatorModelProvider.WORDS.length)];
            if (n > 0 && alternative.equals(token)) {
                continue;
            }
            if (listed > 0) {
                json.append(',');
            }
            json.append('{');
            candidate(json, alternative, thousandths + listed * 1500);
            json.append('}');
            listed++;
        }
        return json.append("]}]").toString();
    }

    private static void candidate(StringBuilder json, String token, int thousandths) {
        json.append("\"token\":\"").append(ToolCallAnswer.quoted(token)).append("\",\"logprob\":")
                .append(BigDecimal.valueOf(-thousandths, 3).toPlainString()).append(",\"bytes\":[");
        byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            json.append(i == 0 ? "" : ",").append(bytes[i] & 0xFF);
        }
        json.append(']');
    }
}
