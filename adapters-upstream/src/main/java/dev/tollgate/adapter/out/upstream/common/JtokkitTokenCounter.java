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
        return text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
    }
}
