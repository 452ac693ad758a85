package dev.tollgate.application.port.out;

import dev.tollgate.domain.completion.ChatMessage;
import java.util.List;

/** Out port: counts tokens the way the models do (a real tokenizer, not characters ÷ 4). */
public interface TokenCounter {

    /** Tokens of a prompt, message framing included. */
    long countPrompt(List<ChatMessage> messages);

    long countText(String text);
}
