package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.CreateApiKeyUseCase;
import dev.tollgate.application.port.in.keys.CreatedApiKey;
import dev.tollgate.application.port.in.keys.DeleteApiKeyUseCase;
import dev.tollgate.application.port.in.keys.GetApiKeyUseCase;
import dev.tollgate.application.port.in.keys.ListApiKeysQuery;
import dev.tollgate.application.port.in.keys.ListApiKeysUseCase;
import dev.tollgate.application.port.in.keys.UpdateApiKeyUseCase;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
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
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP adapter: the API keys page — the signed-in account's regular ({@code gp-}) keys through the same use cases
 * as {@code /api/v1/keys}, with the session's owner as a read-write {@link ManagementPrincipal}. Create shows the raw
 * key once; edit changes name, limit, reset period, expiry and state; delete removes the key for good. Keys are
 * addressed by their hash: a hash that is not a live key of this account — another account's included — is
 * "not found" and changes nothing (§4.1 rule 8).
 */
@Controller("/keys")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ApiKeysController {

    private static final String PAGE = "/keys";

    private final ListApiKeysUseCase list;
    private final GetApiKeyUseCase get;
    private final CreateApiKeyUseCase create;
    private final UpdateApiKeyUseCase update;
    private final DeleteApiKeyUseCase delete;
    private final DashboardPages pages;
    private final DashboardSecurity security;
    private final Clock clock;

    ApiKeysController(ListApiKeysUseCase list, GetApiKeyUseCase get, CreateApiKeyUseCase create,
            UpdateApiKeyUseCase update, DeleteApiKeyUseCase delete, DashboardPages pages, DashboardSecurity security,
            Clock clock) {
        this.list = list;
        this.get = get;
        this.create = create;
        this.update = update;
        this.delete = delete;
        this.pages = pages;
        this.security = security;
        this.clock = clock;
    }

    @Get(produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> page(HttpRequest<?> request, @Nullable @QueryValue String offset) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        return listPage(HttpStatus.OK, request, visitor.get(), DashboardPages.offset(offset, ListApiKeysQuery.MAX_OFFSET),
                Map.of());
    }

    @Post(consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> create(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> create(request, visitor, form));
    }

    private MutableHttpResponse<?> create(HttpRequest<?> request, Visitor visitor, Map<String, String> form) {
        Map<String, Object> typed = typedBack(form);
        CreatedApiKey created;
        try {
            ManagementPrincipal principal = ManagementPrincipal.signedIn(visitor.account());
            created = create.create(principal, new CreateApiKeyCommand(name(form), KeyForms.limit(form),
                    KeyForms.reset(form), KeyForms.expiry(form)));
        } catch (EmailNotVerifiedException e) {
            return listPage(HttpStatus.FORBIDDEN, request, visitor, 0,
                    Map.of("error", "Confirm your e-mail address before creating API keys."));
        } catch (KeyForms.FieldError e) {
            return listPage(HttpStatus.BAD_REQUEST, request, visitor, 0, with(typed, "error", e.getMessage()));
        } catch (DomainRuleViolation e) {
            return listPage(HttpStatus.BAD_REQUEST, request, visitor, 0,
                    with(typed, "error", explain(e)));
        }
        return listPage(HttpStatus.CREATED, request, visitor, 0, Map.of(
                "secret", created.rawKey().reveal(), "secretName", created.details().key().name().value()));
    }

    @Get(value = "/{hash}", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> edit(HttpRequest<?> request, @PathVariable String hash) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        try {
            ManagementPrincipal principal = ManagementPrincipal.signedIn(visitor.get().account());
            ApiKeyDetails details = get.get(principal, hashOf(hash));
            return editPage(HttpStatus.OK, request, details, formOf(details.key()), Map.of());
        } catch (EmailNotVerifiedException e) {
            return DashboardPages.seeOther(PAGE);
        } catch (ApiKeyNotFoundException e) {
            return notFound(request, visitor.get());
        }
    }

    @Post(value = "/{hash}", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> save(HttpRequest<?> request, @PathVariable String hash,
            @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> save(request, visitor, form, hash));
    }

    private MutableHttpResponse<?> save(HttpRequest<?> request, Visitor visitor, Map<String, String> form,
            String hash) {
        ManagementPrincipal principal;
        KeyHash keyHash;
        try {
            principal = ManagementPrincipal.signedIn(visitor.account());
            keyHash = hashOf(hash);
            Usd limit = KeyForms.limit(form);
            LimitReset reset = KeyForms.reset(form);
            Instant expiry = KeyForms.expiry(form);
            ApiKeyDetails current = get.get(principal, keyHash);
            // The form shows every field: an unchanged expiry is kept as it is (it may lie in the past now), an
            // emptied one is removed (§4.1 rule 5), an emptied limit removes the limit and its reset (rule 3).
            FieldChange<Instant> expiryChange = expiry == null ? FieldChange.clear()
                    : KeyForms.inputValue(expiry).equals(KeyForms.inputValue(current.key().expiresAt().orElse(null)))
                            ? FieldChange.keep() : FieldChange.set(expiry);
            FieldChange<Usd> limitChange = limit == null ? FieldChange.clear() : FieldChange.set(limit);
            FieldChange<LimitReset> resetChange = reset == null ? FieldChange.clear() : FieldChange.set(reset);
            if (limit == null && reset == null) {
                resetChange = FieldChange.keep();
            }
            update.update(principal, keyHash, new ApiKeyChanges(FieldChange.set(name(form)),
                    FieldChange.set(form.containsKey("disabled")), limitChange, resetChange, expiryChange));
        } catch (EmailNotVerifiedException e) {
            return listPage(HttpStatus.FORBIDDEN, request, visitor, 0,
                    Map.of("error", "Confirm your e-mail address before changing API keys."));
        } catch (ApiKeyNotFoundException e) {
            return notFound(request, visitor);
        } catch (KeyForms.FieldError | DomainRuleViolation e) {
            return refusedEdit(request, visitor, hash, form,
                    e instanceof DomainRuleViolation rule ? explain(rule) : e.getMessage());
        }
        return DashboardPages.seeOther(PAGE);
    }

    @Post(value = "/{hash}/{action}", consumes = MediaType.APPLICATION_FORM_URLENCODED,
            produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> change(HttpRequest<?> request, @PathVariable String hash, @PathVariable String action,
            @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> change(request, visitor, hash, action));
    }

    private MutableHttpResponse<?> change(HttpRequest<?> request, Visitor visitor, String hash, String action) {
        try {
            ManagementPrincipal principal = ManagementPrincipal.signedIn(visitor.account());
            KeyHash keyHash = hashOf(hash);
            switch (action) {
                case "delete" -> delete.delete(principal, keyHash);
                case "disable", "enable" -> update.update(principal, keyHash, new ApiKeyChanges(FieldChange.keep(),
                        FieldChange.set(action.equals("disable")), FieldChange.keep(), FieldChange.keep(),
                        FieldChange.keep()));
                default -> throw new ApiKeyNotFoundException();
            }
        } catch (EmailNotVerifiedException e) {
            return listPage(HttpStatus.FORBIDDEN, request, visitor, 0,
                    Map.of("error", "Confirm your e-mail address before changing API keys."));
        } catch (ApiKeyNotFoundException e) {
            return notFound(request, visitor);
        }
        return DashboardPages.seeOther(PAGE);
    }

    private static KeyHash hashOf(String segment) {
        return KeyHash.parse(segment).orElseThrow(ApiKeyNotFoundException::new);
    }

    private static KeyName name(Map<String, String> form) {
        try {
            return KeyName.chosen(form.getOrDefault("name", ""));
        } catch (DomainRuleViolation e) {
            throw new KeyForms.FieldError(DashboardPages.sentence(e));
        }
    }

    private static String explain(DomainRuleViolation rule) {
        return switch (rule.field()) {
            case "expires_at" -> "The expiry must lie in the future.";
            case "limit_reset" -> "A reset period needs a limit: enter a limit, or choose no reset.";
            default -> rule.getMessage();
        };
    }

    private static Map<String, Object> typedBack(Map<String, String> form) {
        Map<String, Object> typed = new HashMap<>();
        typed.put("name", form.getOrDefault("name", ""));
        typed.put("limit", form.getOrDefault("limit", ""));
        typed.put("limitReset", form.getOrDefault("limit_reset", ""));
        typed.put("expiresAt", form.getOrDefault("expires_at", ""));
        return typed;
    }

    private static Map<String, Object> with(Map<String, Object> model, String key, Object value) {
        Map<String, Object> all = new HashMap<>(model);
        all.put(key, value);
        return all;
    }

    private MutableHttpResponse<?> notFound(HttpRequest<?> request, Visitor visitor) {
        return listPage(HttpStatus.NOT_FOUND, request, visitor, 0,
                Map.of("error", "There is no such API key in your account."));
    }

    private MutableHttpResponse<?> listPage(HttpStatus status, HttpRequest<?> request, Visitor visitor, int offset,
            Map<String, Object> extra) {
        Map<String, Object> model = new HashMap<>(extra);
        boolean verified = visitor.account().emailVerified();
        List<Map<String, Object>> keys = List.of();
        boolean more = false;
        if (verified) {
            List<ApiKeyDetails> page = list.list(ManagementPrincipal.signedIn(visitor.account()),
                    new ListApiKeysQuery(offset, true));
            Instant now = clock.instant();
            keys = page.stream().map(details -> row(details, now)).toList();
            more = page.size() == ListApiKeysQuery.PAGE_SIZE && offset + page.size() <= ListApiKeysQuery.MAX_OFFSET;
        }
        model.put("keys", keys);
        model.put("verified", verified);
        model.put("offset", offset);
        model.put("previousOffset", offset > 0 ? Math.max(0, offset - ListApiKeysQuery.PAGE_SIZE) : -1);
        model.put("nextOffset", more ? offset + ListApiKeysQuery.PAGE_SIZE : -1);
        model.putIfAbsent("name", "");
        model.putIfAbsent("limit", "");
        model.putIfAbsent("limitReset", "");
        model.putIfAbsent("expiresAt", "");
        return pages.page(status, request, "api-keys", "API keys", "keys", model);
    }

    static Map<String, Object> row(ApiKeyDetails details, Instant now) {
        ApiKey key = details.key();
        KeyUsage usage = details.usage();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("hash", key.hash().hex());
        row.put("name", key.name().value());
        row.put("label", key.label());
        row.put("state", key.state(now).name().toLowerCase(Locale.ROOT));
        row.put("limit", key.limit().map(l -> DashboardPages.money(l.amount())).orElse("none"));
        row.put("reset", key.limit().flatMap(SpendLimit::resetPeriod).map(LimitReset::wireName)
                .orElse(key.limit().isPresent() ? "never (lifetime)" : "—"));
        row.put("remaining", details.limitRemaining().map(DashboardPages::money).orElse("—"));
        row.put("usageDaily", DashboardPages.money(usage.daily()));
        row.put("usageWeekly", DashboardPages.money(usage.weekly()));
        row.put("usageMonthly", DashboardPages.money(usage.monthly()));
        row.put("usageTotal", DashboardPages.money(usage.total()));
        row.put("counted", key.limit().map(l -> DashboardPages.money(usage.countedAgainst(l))).orElse(""));
        row.put("percent", key.limit().map(l -> percent(usage.countedAgainst(l), l.amount())).orElse(-1));
        row.put("expiresAt", key.expiresAt().map(DashboardPages::time).orElse("never"));
        row.put("createdAt", DashboardPages.time(key.createdAt()));
        return row;
    }

    /** How much of a limit is used, in whole percent (0–100), for the meter. */
    static int percent(Usd used, Usd limit) {
        if (limit.micros() == 0) {
            return 100;
        }
        long scaled = Math.min(used.micros(), limit.micros()) * 100 / limit.micros();
        return (int) scaled;
    }

    private static Map<String, Object> formOf(ApiKey key) {
        Map<String, Object> form = new HashMap<>();
        form.put("name", key.name().value());
        form.put("limit", key.limit().map(l -> KeyForms.inputValue(l.amount())).orElse(""));
        form.put("limitReset", key.limit().flatMap(SpendLimit::resetPeriod).map(LimitReset::wireName).orElse(""));
        form.put("expiresAt", KeyForms.inputValue(key.expiresAt().orElse(null)));
        form.put("disabled", key.disabled());
        return form;
    }

    private MutableHttpResponse<?> refusedEdit(HttpRequest<?> request, Visitor visitor, String hash,
            Map<String, String> form, String error) {
        try {
            ApiKeyDetails details = get.get(ManagementPrincipal.signedIn(visitor.account()), hashOf(hash));
            Map<String, Object> typed = typedBack(form);
            typed.put("disabled", form.containsKey("disabled"));
            return editPage(HttpStatus.BAD_REQUEST, request, details, typed, Map.of("error", error));
        } catch (ApiKeyNotFoundException e) {
            return notFound(request, visitor);
        }
    }

    private MutableHttpResponse<?> editPage(HttpStatus status, HttpRequest<?> request, ApiKeyDetails details,
            Map<String, Object> form, Map<String, Object> extra) {
        Map<String, Object> model = new HashMap<>(extra);
        model.put("key", row(details, clock.instant()));
        model.put("form", form);
        return pages.page(status, request, "api-key-edit", "Edit " + details.key().name().value(), "keys", model);
    }
}
