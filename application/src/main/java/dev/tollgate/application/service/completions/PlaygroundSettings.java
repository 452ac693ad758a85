package dev.tollgate.application.service.completions;

import dev.tollgate.domain.catalog.ModelId;
import java.util.List;
import java.util.Objects;

/**
 * The public playground's configuration (§8.2): the free models anonymous visitors may use (paid by the
 * operator), the most output tokens one playground request may ask for, the longest prompt (in characters) an
 * anonymous visitor may send, and whether signed-in callers may use the playground billed to their own account.
 */
public record PlaygroundSettings(List<ModelId> freeModels, int maxOutputTokens, long maxPromptChars,
        boolean userBilled) {

    /** The default longest anonymous prompt: 64 Ki characters, about 16,000 tokens of English. */
    public static final long DEFAULT_MAX_PROMPT_CHARS = 65_536;

    public PlaygroundSettings {
        freeModels = List.copyOf(Objects.requireNonNull(freeModels));
        if (maxOutputTokens < 1) {
            throw new IllegalArgumentException("the playground's output cap must be at least 1 token");
        }
        if (maxPromptChars < 1) {
            throw new IllegalArgumentException("the playground's prompt cap must be at least 1 character");
        }
    }
}
