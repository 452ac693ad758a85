package dev.tollgate.domain.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A model of the catalog: its limits and its provider routes in fallback order (the first route is tried first).
 */
public record CatalogModel(ModelId id, String ownedBy, long createdEpochSeconds, int contextLength,
        int maxOutputTokens, List<ProviderRoute> routes) {

    public CatalogModel {
        Objects.requireNonNull(id);
        Objects.requireNonNull(ownedBy);
        routes = List.copyOf(routes);
        if (routes.isEmpty()) {
            throw new IllegalArgumentException("model " + id + " has no provider route");
        }
        if (contextLength < 1 || maxOutputTokens < 1 || maxOutputTokens > contextLength) {
            throw new IllegalArgumentException("model " + id + ": need 1 <= max_output_tokens <= context_length");
        }
    }

    /** The routes able to serve a request with these features, in fallback order. */
    public List<ProviderRoute> routesFor(ModelCapabilities.RequestedFeatures features) {
        return routes.stream().filter(r -> r.capabilities().missing(features).isEmpty()).toList();
    }

    /** Capabilities of the model as listed: what at least one route offers. */
    public ModelCapabilities capabilities() {
        return new ModelCapabilities(
                routes.stream().anyMatch(r -> r.capabilities().tools()),
                routes.stream().anyMatch(r -> r.capabilities().responseFormat()),
                routes.stream().anyMatch(r -> r.capabilities().logprobs()),
                routes.stream().anyMatch(r -> r.capabilities().seed()));
    }

    /** The listed price: the first route's (the one normally used). */
    public ProviderRoute primaryRoute() {
        return routes.get(0);
    }
}
