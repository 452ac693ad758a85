package dev.tollgate.application.port.out;

import dev.tollgate.domain.completion.ChatRequest;

/** Out port: counts tokens the way the models do (a real tokenizer, not characters ÷ 4). */
public interface TokenCounter {

    /**
     * Tokens of the text a request sends upstream as its prompt: every message (its text and the other texts it
     * carries, framing included) and the definitions that go with them (tools, tool_choice, response_format).
     * Image parts are not text: the caller counts them at the model's {@code image_tokens}.
     */
    long countPrompt(ChatRequest request);

    long countText(String text);
}
