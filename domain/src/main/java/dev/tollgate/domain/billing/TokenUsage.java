package dev.tollgate.domain.billing;

/** Tokens of one request: prompt (input) and completion (output). */
public record TokenUsage(long promptTokens, long completionTokens) {

    public static final TokenUsage NONE = new TokenUsage(0, 0);

    public TokenUsage {
        if (promptTokens < 0 || completionTokens < 0) {
            throw new IllegalArgumentException("token counts are not negative");
        }
    }

    public long totalTokens() {
        return promptTokens + completionTokens;
    }
}
