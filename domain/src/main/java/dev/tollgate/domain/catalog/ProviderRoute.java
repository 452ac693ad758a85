package dev.tollgate.domain.catalog;

import java.util.Objects;

/** One way to serve a model: a provider, the provider's own model name, prices and capabilities. */
public record ProviderRoute(ProviderId provider, String upstreamModel, TokenPrice inputPrice, TokenPrice outputPrice,
        ModelCapabilities capabilities) {

    public ProviderRoute {
        Objects.requireNonNull(provider);
        Objects.requireNonNull(upstreamModel);
        Objects.requireNonNull(inputPrice);
        Objects.requireNonNull(outputPrice);
        Objects.requireNonNull(capabilities);
    }
}
