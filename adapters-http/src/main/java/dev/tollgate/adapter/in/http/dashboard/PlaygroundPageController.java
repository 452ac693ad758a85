package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.completions.CatalogUnavailableException;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.playground.PlaygroundChatUseCase;
import dev.tollgate.application.port.in.playground.ResolvePlaygroundPrincipalUseCase;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelId;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * HTTP adapter: the playground page. Its script streams answers from {@code POST /v1/public/chat/completions}
 * (fetch, reading the SSE body as it arrives; Stop aborts the request). Visitors chat anonymously with the free
 * models; in user-billed mode a signed-in, verified user chats with every catalog model billed to the account
 * (the session and its form token authenticate the script's request), and anyone may paste a regular key instead.
 */
@Controller("/playground")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PlaygroundPageController {

    private final PlaygroundChatUseCase playground;
    private final ListModelsUseCase models;
    private final DashboardPages pages;
    private final DashboardSecurity security;

    PlaygroundPageController(PlaygroundChatUseCase playground, ListModelsUseCase models, DashboardPages pages,
            DashboardSecurity security) {
        this.playground = playground;
        this.models = models;
        this.pages = pages;
        this.security = security;
    }

    @Get(produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> page(HttpRequest<?> request) {
        return page(HttpStatus.OK, request, Map.of());
    }

    /** Without JavaScript the form posts here: the answer streams only with the page's script. */
    @Post(consumes = {MediaType.APPLICATION_FORM_URLENCODED, MediaType.ALL}, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> withoutScript(HttpRequest<?> request) {
        return page(HttpStatus.OK, request, Map.of("error", "The playground streams answers with JavaScript, which "
                + "is off in this browser. The same requests work with curl: see the API reference."));
    }

    private MutableHttpResponse<?> page(HttpStatus status, HttpRequest<?> request, Map<String, Object> extra) {
        Optional<Visitor> visitor = security.visitor(request);
        boolean userBilled = playground.userBilledMode();
        boolean signedIn = visitor.isPresent();
        boolean verified = signedIn && visitor.get().account().emailVerified();
        String mode = userBilled && verified ? "account" : "anonymous";

        List<ModelId> free = playground.freeModels();
        Set<ModelId> freeSet = Set.copyOf(free);
        List<Map<String, Object>> freeChoices = new ArrayList<>();
        for (ModelId id : free) {
            freeChoices.add(choice(id.value()));
        }
        List<Map<String, Object>> billedChoices = new ArrayList<>();
        boolean catalogDown = false;
        if (userBilled) {
            try {
                for (CatalogModel model : models.list()) {
                    if (!freeSet.contains(model.id())) {
                        billedChoices.add(choice(model.id().value()));
                    }
                }
            } catch (CatalogUnavailableException e) {
                catalogDown = true;
            }
        }
        Map<String, Object> model = new HashMap<>(extra);
        model.put("mode", mode);
        model.put("userBilled", userBilled);
        model.put("signedIn", signedIn);
        model.put("verified", verified);
        model.put("freeChoices", freeChoices);
        model.put("billedChoices", billedChoices);
        model.put("catalogDown", catalogDown);
        model.put("keyName", ResolvePlaygroundPrincipalUseCase.KEY_NAME);
        model.put("tokenHeader", DashboardSecurity.FORM_TOKEN_HEADER);
        return pages.page(status, request, "playground", "Playground", "playground", model);
    }

    private static Map<String, Object> choice(String id) {
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("id", id);
        return choice;
    }
}
