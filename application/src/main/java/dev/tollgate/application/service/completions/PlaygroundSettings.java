package dev.tollgate.application.service.completions;

import dev.tollgate.domain.catalog.ModelId;
import java.util.List;
import java.util.Objects;

/**
 * The public playground's configuration (§8.2): the free models anonymous visitors may use (paid by the
 * operator), the most output tokens one playground request may ask for, and whether signed-in callers may use the
 * playground billed to their own account.
 */
public record PlaygroundSettings(List<ModelId> freeModels, int maxOutputTokens, boolean userBilled) {

    public PlaygroundSettings {
        freeModels = List.copyOf(Objects.requireNonNull(freeModels));
        if (maxOutputTokens < 1) {
            throw new IllegalArgumentException("the playground's output cap must be at least 1 token");
        }
    }
}
