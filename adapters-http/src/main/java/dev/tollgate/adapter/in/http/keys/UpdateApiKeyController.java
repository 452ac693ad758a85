package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.keys.UpdateApiKeyUseCase;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** HTTP adapter: {@code PATCH /api/v1/keys/:hash}; an absent field stays, {@code null} removes (§3, §4.1). */
@Controller(value = KeysControllers.BASE, produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class UpdateApiKeyController extends CrossOriginApi {

    private final ManagementAuthentication authentication;
    private final UpdateApiKeyUseCase updateApiKey;

    UpdateApiKeyController(ManagementAuthentication authentication, UpdateApiKeyUseCase updateApiKey) {
        this.authentication = authentication;
        this.updateApiKey = updateApiKey;
    }

    @Patch("/{hash}")
    @Consumes(MediaType.ALL)
    KeyResponses.One update(HttpRequest<?> request, @PathVariable String hash, @Body @Nullable byte[] body) {
        var principal = authentication.principal(request);
        principal.requireWriteAccess();
        var changes = KeyRequests.update(JsonObjectBody.parseDeclared(request, body));
        return new KeyResponses.One(ApiKeyRecord.of(updateApiKey.update(principal, KeyRequests.hash(hash), changes)));
    }
}
