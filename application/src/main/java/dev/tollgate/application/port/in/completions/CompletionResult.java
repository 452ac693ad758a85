package dev.tollgate.application.port.in.completions;

import dev.tollgate.domain.billing.TokenUsage;

/** How a completion ended: the reason (§6.2 finish_reason), the tokens billed, and who served it. */
public record CompletionResult(String finishReason, TokenUsage usage, String provider) {
}
