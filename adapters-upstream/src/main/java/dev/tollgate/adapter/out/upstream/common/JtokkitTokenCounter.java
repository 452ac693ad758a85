package dev.tollgate.adapter.out.upstream.common;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.completion.ChatMessage;
import dev.tollgate.domain.completion.ChatRequest;

/**
 * Upstream adapter: {@link TokenCounter} with jtokkit's o200k_base encoding (OpenAI's current tokenizer), plus
 * OpenAI's documented chat framing of 3 tokens per message and 3 for the reply's priming. Definitions (tools,
 * tool_choice, response_format) count by their strings — names, descriptions, schema keys and values — plus a
 * little framing; JSON punctuation is not counted (providers render definitions in their own shorter form). Other providers'
 * tokenizers differ by a few percent; holds use the model's full output allowance, so an estimate that is
 * slightly low never lets a request overspend (settlement is capped at the hold).
 */
public final class JtokkitTokenCounter implements TokenCounter {

    private static final int TOKENS_PER_MESSAGE = 3;
    private static final int REPLY_PRIMING = 3;
    /** What a provider wraps tool and schema definitions in (OpenAI renders them into the system message). */
    private static final int DEFINITIONS_FRAMING = 10;
    /** The longest run of text without whitespace the encoder is given whole (see {@link #countText}). */
    static final int LONGEST_RUN = 512;
    private final Encoding encoding = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);

    @Override
    public long countPrompt(ChatRequest request) {
        long tokens = REPLY_PRIMING;
        for (ChatMessage message : request.messages()) {
            tokens += TOKENS_PER_MESSAGE + countText(message.role()) + countText(message.text())
                    + countText(message.extra());
        }
        String definitions = request.definitionsText();
        if (!definitions.isEmpty()) {
            tokens += DEFINITIONS_FRAMING + countText(definitions);
        }
        return tokens;
    }

    @Override
    public long countText(String text) {
        if (text.length() <= LONGEST_RUN) {
            return text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
        }
        // Runs of text without whitespace longer than LONGEST_RUN are counted in pieces of that length: the encoder
        // takes time and memory that grow much faster than the run (a 1 MiB word: about 0.5–1 s and a hundred MB,
        // against 0.15 s in pieces), so one request could stall a core and a few dozen exhaust the heap. Tokens do
        // not span a cut, so a cut run counts as many tokens or a few more (at most about 1 % for the most
        // repetitive text, less for encoded data) — an estimate on the safe side for holds.
        long tokens = 0;
        int start = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                run = 0;
            } else if (++run > LONGEST_RUN && !Character.isLowSurrogate(c)) {
                tokens += encoding.countTokensOrdinary(text.substring(start, i));
                start = i;
                run = 1;
            }
        }
        return tokens + encoding.countTokensOrdinary(text.substring(start));
    }
}
