package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.CreatedManagementKey;
import dev.tollgate.application.port.in.managementkey.DeleteManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.DisableManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.EnableManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.ListManagementKeysUseCase;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyOverview;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyName;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * HTTP adapter: Settings → Management Keys. Create asks only for a display name (§1: read_write, no expiry) and
 * shows the {@code gpm-} secret once, in that answer only; disable, enable and delete address a key by its id
 * within the signed-in account — any other id, another account's included, is "not found" and changes nothing.
 */
@Controller("/settings")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ManagementKeysController {

    private static final String PAGE = "/settings/management-keys";

    private final ListManagementKeysUseCase list;
    private final CreateManagementKeyUseCase create;
    private final DisableManagementKeyUseCase disable;
    private final EnableManagementKeyUseCase enable;
    private final DeleteManagementKeyUseCase delete;
    private final DashboardPages pages;
    private final DashboardSecurity security;

    ManagementKeysController(ListManagementKeysUseCase list, CreateManagementKeyUseCase create,
            DisableManagementKeyUseCase disable, EnableManagementKeyUseCase enable, DeleteManagementKeyUseCase delete,
            DashboardPages pages, DashboardSecurity security) {
        this.list = list;
        this.create = create;
        this.disable = disable;
        this.enable = enable;
        this.delete = delete;
        this.pages = pages;
        this.security = security;
    }

    @Get(produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> settings() {
        return DashboardPages.seeOther(PAGE);
    }

    @Get(value = "/management-keys", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> page(HttpRequest<?> request) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        return page(HttpStatus.OK, request, visitor.get(), Map.of());
    }

    @Post(value = "/management-keys", consumes = MediaType.APPLICATION_FORM_URLENCODED,
            produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> create(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> create(request, visitor, form));
    }

    private MutableHttpResponse<?> create(HttpRequest<?> request, Visitor visitor, Map<String, String> form) {
        String typed = form.getOrDefault("name", "");
        KeyName name;
        try {
            name = KeyName.chosen(typed);
        } catch (DomainRuleViolation e) {
            return page(HttpStatus.BAD_REQUEST, request, visitor,
                    Map.of("error", DashboardPages.sentence(e), "name", typed));
        }
        CreatedManagementKey created;
        try {
            created = create.create(new CreateManagementKeyCommand(visitor.account().email(), name,
                    ManagementAccess.READ_WRITE, null));
        } catch (EmailNotVerifiedException e) {
            return page(HttpStatus.FORBIDDEN, request, visitor,
                    Map.of("error", "Confirm your e-mail address before creating management keys."));
        } catch (ManagementKeyLimitReachedException e) {
            return page(HttpStatus.CONFLICT, request, visitor, Map.of("error", "This account already has 25 "
                    + "active management keys, the most it may have. Disable or delete one first."));
        } catch (ManagementKeyNameTakenException e) {
            return page(HttpStatus.CONFLICT, request, visitor, Map.of("error",
                    "A management key named \"" + name.value() + "\" exists already. Choose another name.",
                    "name", typed));
        }
        return page(HttpStatus.CREATED, request, visitor, Map.of(
                "secret", created.rawKey().reveal(), "secretName", created.key().name().value()));
    }

    @Post(value = "/management-keys/{id}/{action}", consumes = MediaType.APPLICATION_FORM_URLENCODED,
            produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> change(HttpRequest<?> request, @PathVariable String id, @PathVariable String action,
            @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> change(request, visitor, id, action));
    }

    private MutableHttpResponse<?> change(HttpRequest<?> request, Visitor visitor, String id, String action) {
        var owner = visitor.account().id();
        try {
            ManagementKeyId key = new ManagementKeyId(UUID.fromString(id));
            switch (action) {
                case "disable" -> disable.disable(owner, key);
                case "enable" -> enable.enable(owner, key);
                case "delete" -> delete.delete(owner, key);
                default -> throw new ManagementKeyNotFoundException();
            }
        } catch (IllegalArgumentException | ManagementKeyNotFoundException e) {
            return page(HttpStatus.NOT_FOUND, request, visitor,
                    Map.of("error", "There is no such management key in your account."));
        } catch (ManagementKeyLimitReachedException e) {
            return page(HttpStatus.CONFLICT, request, visitor, Map.of("error", "This account already has 25 "
                    + "active management keys. Disable or delete one before enabling another."));
        }
        return DashboardPages.seeOther(PAGE);
    }

    private MutableHttpResponse<?> page(HttpStatus status, HttpRequest<?> request, Visitor visitor,
            Map<String, Object> extra) {
        ManagementKeyOverview overview = list.list(visitor.account().id());
        List<Map<String, Object>> keys = overview.keys().stream().map(entry -> {
            Map<String, Object> key = new LinkedHashMap<>();
            key.put("id", entry.key().id().toString());
            key.put("name", entry.key().name().value());
            key.put("label", entry.key().label());
            key.put("access", entry.key().access().wireName().replace('_', '-'));
            key.put("state", entry.state().name().toLowerCase(Locale.ROOT));
            key.put("createdAt", DashboardPages.time(entry.key().createdAt()));
            key.put("lastUsedAt", entry.key().lastUsedAt().map(DashboardPages::time).orElse("never"));
            // A key the operator made with the CLI may be read-only or expire (an audit: the page did not say).
            key.put("expiresAt", entry.key().expiresAt().map(DashboardPages::time).orElse("never"));
            return key;
        }).toList();
        Map<String, Object> model = new HashMap<>(extra);
        model.put("keys", keys);
        model.put("active", overview.active());
        model.put("maxActive", overview.maxActive());
        model.put("limitReached", !overview.roomForAnother());
        model.put("verified", visitor.account().emailVerified());
        model.putIfAbsent("name", "");
        return pages.page(status, request, "management-keys", "Management keys", "settings", model);
    }
}
