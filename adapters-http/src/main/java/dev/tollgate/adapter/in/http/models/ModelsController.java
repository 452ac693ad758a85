package dev.tollgate.adapter.in.http.models;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.adapter.in.http.completions.ModelApiAuthentication;
import dev.tollgate.adapter.in.http.common.RateLimitHeaders;
import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.in.completions.AdmitPlainRequestUseCase;
import dev.tollgate.application.port.in.traffic.TrafficOrigin;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelCapabilities;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP adapter: {@code GET /v1/models} (OpenAI list shape) and {@code GET /v1/models/{id}}, each entry with
 * Tollgate's extras: {@code pricing} (USD per token as decimal strings, OpenRouter's convention),
 * {@code context_length}, {@code max_output_tokens} and {@code capabilities}.
 */
@Controller(value = "/v1/models", produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ModelsController extends CrossOriginApi {

    private static final String ITEM_PREFIX = "/v1/models/";

    private final ModelApiAuthentication authentication;
    private final ListModelsUseCase models;
    private final AdmitPlainRequestUseCase traffic;
    private final SourceAddresses sources;

    ModelsController(ModelApiAuthentication authentication, ListModelsUseCase models, AdmitPlainRequestUseCase traffic,
            SourceAddresses sources) {
        this.authentication = authentication;
        this.models = models;
        this.traffic = traffic;
        this.sources = sources;
    }

    /** §5.1, §8.1: the key, then the caller's request buckets (the list is a /v1 request like any other). */
    private void admit(HttpRequest<?> request) {
        ApiKeyPrincipal principal = authentication.principal(request);
        RateLimitHeaders.remember(request, traffic.admitPlainRequest(principal,
                TrafficOrigin.of(sources.sourceOf(request))));
    }

    @Get
    Map<String, Object> list(HttpRequest<?> request) {
        admit(request);
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("object", "list");
        page.put("data", models.list().stream().map(ModelsController::entry).toList());
        return page;
    }

    @Get("/{+id}")
    Map<String, Object> get(HttpRequest<?> request, @PathVariable String id) {
        admit(request);
        return entry(models.get(ModelNotFoundException.requested(literalPlus(request.getUri().getRawPath(), id))));
    }

    /**
     * The id as the path spells it: Micronaut decodes a path variable as it decodes a form value, a {@code +} as a
     * space, but in a path a {@code +} is itself (RFC 3986), so {@code /v1/models/t/a+b} asks for {@code t/a+b}.
     * The id is read again from the raw path when it holds a {@code +}; any other difference keeps Micronaut's.
     */
    static String literalPlus(String rawPath, String id) {
        int at = rawPath == null ? -1 : rawPath.indexOf(ITEM_PREFIX);
        if (at < 0 || rawPath.indexOf('+', at) < 0) {
            return id;
        }
        String spelled;
        try {
            spelled = URLDecoder.decode(rawPath.substring(at + ITEM_PREFIX.length()).replace("+", "%2B"),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return id;
        }
        for (String candidate : List.of(spelled, spelled.endsWith("/") ? spelled.substring(0, spelled.length() - 1)
                : spelled)) {
            if (candidate.replace('+', ' ').equals(id)) {
                return candidate;
            }
        }
        return id;
    }

    static Map<String, Object> entry(CatalogModel model) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", model.id().value());
        entry.put("object", "model");
        entry.put("created", model.createdEpochSeconds());
        entry.put("owned_by", model.ownedBy());
        entry.put("context_length", model.contextLength());
        entry.put("max_output_tokens", model.maxOutputTokens());
        Map<String, Object> pricing = new LinkedHashMap<>();
        pricing.put("prompt", model.primaryRoute().inputPrice().perTokenUsd().toPlainString());
        pricing.put("completion", model.primaryRoute().outputPrice().perTokenUsd().toPlainString());
        entry.put("pricing", pricing);
        ModelCapabilities caps = model.capabilities();
        Map<String, Object> capabilities = new LinkedHashMap<>();
        capabilities.put("tools", caps.tools());
        capabilities.put("response_format", caps.responseFormat());
        capabilities.put("logprobs", caps.logprobs());
        capabilities.put("seed", caps.seed());
        capabilities.put("images", caps.images());
        entry.put("capabilities", capabilities);
        entry.put("providers", model.routes().stream().map(r -> r.provider().value()).distinct().toList());
        return entry;
    }

    static List<String> ids(List<CatalogModel> models) {
        return models.stream().map(m -> m.id().value()).toList();
    }
}
