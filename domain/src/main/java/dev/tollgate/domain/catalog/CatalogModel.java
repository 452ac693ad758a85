package dev.tollgate.domain.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A model of the catalog: its limits and its provider routes in fallback order (the first route is tried first).
 * {@code imageTokens} is what one image part may cost at most, in prompt tokens (the hold counts each image at
 * it); a model with a route that accepts images must set it.
 */
public record CatalogModel(ModelId id, String ownedBy, long createdEpochSeconds, int contextLength,
        int maxOutputTokens, List<ProviderRoute> routes, int imageTokens) {

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
        if (imageTokens < 0 || imageTokens > contextLength) {
            throw new IllegalArgumentException("model " + id + ": need 0 <= image_tokens <= context_length");
        }
        if (imageTokens == 0 && routes.stream().anyMatch(r -> r.capabilities().images())) {
            throw new IllegalArgumentException("model " + id + " has a route that accepts images: set image-tokens, "
                    + "the most prompt tokens one image may cost with its providers");
        }
    }

    /** A model without image input. */
    public CatalogModel(ModelId id, String ownedBy, long createdEpochSeconds, int contextLength,
            int maxOutputTokens, List<ProviderRoute> routes) {
        this(id, ownedBy, createdEpochSeconds, contextLength, maxOutputTokens, routes, 0);
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
                routes.stream().anyMatch(r -> r.capabilities().seed()),
                routes.stream().anyMatch(r -> r.capabilities().images()));
    }

    /** The listed price: the first route's (the one normally used). */
    public ProviderRoute primaryRoute() {
        return routes.get(0);
    }
}
