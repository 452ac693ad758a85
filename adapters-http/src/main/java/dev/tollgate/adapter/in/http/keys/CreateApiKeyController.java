package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.keys.CreateApiKeyUseCase;
import dev.tollgate.application.port.in.keys.CreatedApiKey;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** HTTP adapter: {@code POST /api/v1/keys} answers 201 with the raw key, once (§2.2, sdk-contract.md). */
@Controller(value = KeysControllers.BASE, produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class CreateApiKeyController extends CrossOriginApi {

    private final ManagementAuthentication authentication;
    private final CreateApiKeyUseCase createApiKey;

    CreateApiKeyController(ManagementAuthentication authentication, CreateApiKeyUseCase createApiKey) {
        this.authentication = authentication;
        this.createApiKey = createApiKey;
    }

    @Post
    @Consumes(MediaType.ALL)
    HttpResponse<KeyResponses.Created> create(HttpRequest<?> request, @Body @Nullable byte[] body) {
        var principal = authentication.principal(request);
        principal.requireWriteAccess();
        CreatedApiKey created = createApiKey.create(principal, KeyRequests.create(JsonObjectBody.parseDeclared(request, body)));
        // The raw key is in this answer only: no cache along the way may keep a copy.
        return HttpResponse.created(
                new KeyResponses.Created(created.rawKey().reveal(), ApiKeyRecord.of(created.details())))
                .header(HttpHeaders.CACHE_CONTROL, "no-store");
    }
}
