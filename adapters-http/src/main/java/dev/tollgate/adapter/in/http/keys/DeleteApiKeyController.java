package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.CrossOriginApi;
import dev.tollgate.application.port.in.keys.DeleteApiKeyUseCase;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** HTTP adapter: {@code DELETE /api/v1/keys/:hash} answers 200 {@code {deleted: true}} (sdk-contract.md). */
@Controller(value = KeysControllers.BASE, produces = {MediaType.APPLICATION_JSON, MediaType.ALL},
        consumes = MediaType.ALL)
@ExecuteOn(TaskExecutors.BLOCKING)
public class DeleteApiKeyController extends CrossOriginApi {

    private final ManagementAuthentication authentication;
    private final DeleteApiKeyUseCase deleteApiKey;

    DeleteApiKeyController(ManagementAuthentication authentication, DeleteApiKeyUseCase deleteApiKey) {
        this.authentication = authentication;
        this.deleteApiKey = deleteApiKey;
    }

    @Delete("/{hash}")
    KeyResponses.Deleted delete(HttpRequest<?> request, @PathVariable String hash) {
        var principal = authentication.principal(request);
        principal.requireWriteAccess();
        deleteApiKey.delete(principal, KeyRequests.hash(hash));
        return new KeyResponses.Deleted(true);
    }
}
