package dev.tollgate.domain.completion;

import dev.tollgate.domain.shared.DomainRuleViolation;

/**
 * The prompt, or the prompt and the output asked for, do not fit the model's context length: a 400 that names
 * the field, told apart from other broken rules because clients look for it (OpenAI's code
 * {@code context_length_exceeded}, which frameworks read to trim a conversation).
 */
public final class ContextLengthExceeded extends DomainRuleViolation {

    public ContextLengthExceeded(String field, String message) {
        super(field, message);
    }
}
