package dev.tollgate.bootstrap.e2e;

/**
 * Test fixture: a model catalog (docs/catalog.md) built from simulator providers and one-route models, so that each
 * end-to-end test says only what matters to it — how fast a provider answers and what a model costs.
 */
final class TestCatalog {

    private final StringBuilder providers = new StringBuilder("providers:\n");
    private final StringBuilder models = new StringBuilder("models:\n");

    /** A simulator: first token after {@code ttftMillis}, then {@code tokensPerSecond} (0: all at once). */
    TestCatalog simulator(String name, int ttftMillis, int tokensPerSecond, int outputTokens) {
        providers.append("  ").append(name).append(":\n")
                .append("    type: simulator\n")
                .append("    time-to-first-token-ms: ").append(ttftMillis).append('\n')
                .append("    tokens-per-second: ").append(tokensPerSecond).append('\n')
                .append("    output-tokens: ").append(outputTokens).append('\n');
        return this;
    }

    /** A model served by one provider at these USD prices per million tokens (decimal strings). */
    TestCatalog model(String id, String provider, String inputUsdPerMillion, String outputUsdPerMillion) {
        models.append("  - id: ").append(id).append('\n')
                .append("    owned-by: test\n")
                .append("    created: 1767225600\n")
                .append("    context-length: 4096\n")
                .append("    max-output-tokens: 512\n")
                .append("    routes:\n")
                .append("      - provider: ").append(provider).append('\n')
                .append("        model: ").append(id.substring(id.indexOf('/') + 1)).append('\n')
                .append("        input-usd-per-million: \"").append(inputUsdPerMillion).append("\"\n")
                .append("        output-usd-per-million: \"").append(outputUsdPerMillion).append("\"\n");
        return this;
    }

    String yaml() {
        return providers.toString() + models;
    }
}
