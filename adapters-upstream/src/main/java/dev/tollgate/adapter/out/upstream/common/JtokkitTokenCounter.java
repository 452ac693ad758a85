package dev.tollgate.adapter.out.upstream.common;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.tollgate.application.port.out.TokenCounter;
import dev.tollgate.domain.completion.ChatMessage;
import java.util.List;

/**
 * Upstream adapter: {@link TokenCounter} with jtokkit's o200k_base encoding (OpenAI's current tokenizer), plus
 * OpenAI's documented chat framing of 3 tokens per message and 3 for the reply's priming. Other providers'
 * tokenizers differ by a few percent; holds use the model's full output allowance, so an estimate that is
 * slightly low never lets a request overspend (settlement is capped at the hold).
 */
public final class JtokkitTokenCounter implements TokenCounter {

    private static final int TOKENS_PER_MESSAGE = 3;
    private static final int REPLY_PRIMING = 3;
    private final Encoding encoding = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);

    @Override
    public long countPrompt(List<ChatMessage> messages) {
        long tokens = REPLY_PRIMING;
        for (ChatMessage message : messages) {
            tokens += TOKENS_PER_MESSAGE + countText(message.role()) + countText(message.text());
        }
        return tokens;
    }

    @Override
    public long countText(String text) {
        return text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
    }
}
