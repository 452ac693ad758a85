package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.application.port.in.keys.ListApiKeysUseCase;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** HTTP adapter: {@code GET /api/v1/keys} (§4.1). */
@Controller(value = KeysControllers.BASE, produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ListApiKeysController extends CrossOriginApi {

    private final ManagementAuthentication authentication;
    private final ListApiKeysUseCase listApiKeys;

    ListApiKeysController(ManagementAuthentication authentication, ListApiKeysUseCase listApiKeys) {
        this.authentication = authentication;
        this.listApiKeys = listApiKeys;
    }

    @Get
    KeyResponses.Page list(HttpRequest<?> request, @QueryValue("offset") @Nullable String offset,
            @QueryValue("include_disabled") @Nullable String includeDisabled) {
        var principal = authentication.principal(request);
        var page = listApiKeys.list(principal, KeyRequests.list(offset, includeDisabled));
        return new KeyResponses.Page(page.stream().map(ApiKeyRecord::of).toList());
    }
}
