package dev.tollgate.application.port.in.completions;

import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.Usd;

/** How a completion ended: the reason (§6.2 finish_reason), the tokens, what was charged, and who served it. */
public record CompletionResult(String finishReason, TokenUsage usage, Usd charged, String provider) {
}
