package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.adapter.out.upstream.catalog.CatalogFile;
import dev.tollgate.adapter.out.upstream.anthropic.AnthropicModelProvider;
import dev.tollgate.adapter.out.upstream.openai.OpenAiCompatibleModelProvider;
import dev.tollgate.adapter.out.upstream.simulator.SimulatorModelProvider;
import dev.tollgate.application.port.out.ModelProvider;
import dev.tollgate.application.port.out.ModelProviders;
import dev.tollgate.application.port.out.TokenCounter;
import io.micronaut.json.JsonMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/** Upstream adapter: {@link ModelProviders} built from the catalog's {@code providers} section at start-up. */
public final class ConfiguredModelProviders implements ModelProviders {

    private final Map<String, ModelProvider> providers = new LinkedHashMap<>();

    public ConfiguredModelProviders(CatalogFile catalog, TokenCounter tokens, ScheduledExecutorService scheduler,
            UpstreamHttp http, JsonMapper json) {
        for (CatalogFile.ProviderSettings settings : catalog.providers().values()) {
            ModelProvider provider = switch (settings.type()) {
                case "simulator" -> new SimulatorModelProvider(settings, tokens, scheduler);
                case "openai" -> new OpenAiCompatibleModelProvider(settings, http, json);
                case "anthropic" -> new AnthropicModelProvider(settings, http, json);
                default -> throw new IllegalArgumentException("provider " + settings.name() + ": unknown type '"
                        + settings.type() + "' (known: simulator, openai, anthropic)");
            };
            long cap = settings.number("requests-per-minute", 0, 0);
            settings.requireAllRead();
            providers.put(settings.name(), cap > 0 ? new RateCappedModelProvider(provider, cap, scheduler) : provider);
        }
    }

    @Override
    public Optional<ModelProvider> byName(String name) {
        return Optional.ofNullable(providers.get(name));
    }
}
