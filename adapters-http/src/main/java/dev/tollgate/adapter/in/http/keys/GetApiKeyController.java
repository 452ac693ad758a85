package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.application.port.in.keys.GetApiKeyUseCase;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** HTTP adapter: {@code GET /api/v1/keys/:hash} (§4.1). */
@Controller(value = KeysControllers.BASE, produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class GetApiKeyController extends CrossOriginApi {

    private final ManagementAuthentication authentication;
    private final GetApiKeyUseCase getApiKey;

    GetApiKeyController(ManagementAuthentication authentication, GetApiKeyUseCase getApiKey) {
        this.authentication = authentication;
        this.getApiKey = getApiKey;
    }

    @Get("/{hash}")
    KeyResponses.One get(HttpRequest<?> request, @PathVariable String hash) {
        var principal = authentication.principal(request);
        return new KeyResponses.One(ApiKeyRecord.of(getApiKey.get(principal, KeyRequests.hash(hash))));
    }
}
