package dev.tollgate.domain.completion;

/**
 * Domain: text of an answer that is not its content — a model's refusal (OpenAI's {@code refusal}) or its
 * reasoning (OpenRouter's {@code reasoning}, also sent by reasoning models served through vLLM, DeepSeek and
 * Anthropic's extended thinking). It is output like the content: it is passed on to the client, it ends any fallback
 * and it is billed.
 */
public enum AnswerChannel {
    REFUSAL,
    REASONING
}
