package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.application.port.in.keys.ListApiKeysQuery;
import dev.tollgate.application.port.in.keys.ListApiKeysUseCase;
import dev.tollgate.application.port.in.usage.ActivityPage;
import dev.tollgate.application.port.in.usage.ListActivityUseCase;
import dev.tollgate.application.port.in.usage.UsageFilter;
import dev.tollgate.application.port.in.usage.UsageReport;
import dev.tollgate.application.port.in.usage.ViewUsageUseCase;
import dev.tollgate.application.port.out.UsageQueries.Activity;
import dev.tollgate.application.port.out.UsageQueries.DailyUsage;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP adapter: Usage — the balance; spend and tokens per day of the last 30 days as server-drawn SVG charts,
 * filtered by key and model; every key's usage windows against its limit; the activity table of settled requests
 * (newest first, in pages); and its CSV export. Only the signed-in account's rows are ever read: the account comes
 * from the session, and a key filter naming another account's key matches nothing.
 */
@Controller("/usage")
@ExecuteOn(TaskExecutors.BLOCKING)
public class UsageController {

    static final int DAYS = 30;
    static final int PAGE_SIZE = 25;
    /** Most rows a CSV export carries: the newest matching requests. */
    static final int EXPORT_ROWS = 50_000;
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final ViewUsageUseCase usage;
    private final ListActivityUseCase activity;
    private final ListApiKeysUseCase keys;
    private final DashboardPages pages;
    private final DashboardSecurity security;
    private final Clock clock;

    UsageController(ViewUsageUseCase usage, ListActivityUseCase activity, ListApiKeysUseCase keys,
            DashboardPages pages, DashboardSecurity security, Clock clock) {
        this.usage = usage;
        this.activity = activity;
        this.keys = keys;
        this.pages = pages;
        this.security = security;
        this.clock = clock;
    }

    @Get(produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> page(HttpRequest<?> request, @Nullable @QueryValue String key,
            @Nullable @QueryValue String model, @Nullable @QueryValue String offset) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        var account = visitor.get().account();
        UsageFilter filter = filterOf(key, model);
        UsageReport report = usage.usage(account.id(), filter, DAYS);
        ActivityPage page = activity.activity(account.id(), filter,
                DashboardPages.offset(offset, ListActivityUseCase.MAX_OFFSET), PAGE_SIZE);

        Map<String, Object> model0 = new HashMap<>();
        model0.put("balance", DashboardPages.money(report.balance()));
        model0.put("periodSpend", DashboardPages.money(report.totalSpend()));
        model0.put("periodTokens", count(report.totalTokens()));
        model0.put("periodRequests", count(report.requests()));
        model0.put("days", DAYS);
        model0.put("spendChart", UsageCharts.bars(report.days(), d -> d.spend().micros(),
                micros -> DashboardPages.money(Usd.ofMicros(micros)), "spend"));
        model0.put("tokenChart", UsageCharts.bars(report.days(), DailyUsage::totalTokens,
                tokens -> count(tokens) + " tokens", "tokens"));
        List<Map<String, Object>> dayRows = new ArrayList<>(report.days().stream().filter(d -> d.requests() > 0)
                .map(UsageController::dayRow).toList());
        java.util.Collections.reverse(dayRows);
        model0.put("dayRows", dayRows);

        List<Map<String, Object>> keyRows = List.of();
        List<Map<String, Object>> keyChoices = new ArrayList<>();
        if (account.emailVerified()) {
            Instant now = clock.instant();
            // Every key, page after page: the newest hundred left out the older ones that had spent (an audit).
            List<ApiKeyDetails> owned = new ArrayList<>();
            List<ApiKeyDetails> batch;
            do {
                batch = keys.list(ManagementPrincipal.signedIn(account), new ListApiKeysQuery(owned.size(), true));
                owned.addAll(batch);
            } while (batch.size() >= ListApiKeysQuery.PAGE_SIZE && owned.size() <= ListApiKeysQuery.MAX_OFFSET);
            keyRows = owned.stream().map(details -> ApiKeysController.row(details, now)).toList();
            for (ApiKeyDetails details : owned) {
                keyChoices.add(choice(details.key().hash().hex(), details.key().name().value() + " ("
                        + details.key().label() + ")", filter.key() != null && filter.key().equals(details.key().hash())));
            }
        }
        List<Map<String, Object>> modelChoices = report.models().stream()
                .map(m -> choice(m, m, m.equals(filter.model()))).toList();
        model0.put("keyRows", keyRows);
        model0.put("keyChoices", keyChoices);
        model0.put("modelChoices", modelChoices);
        model0.put("filtered", filter.key() != null || filter.model() != null);
        model0.put("filterKey", filter.key() == null ? "" : filter.key().hex());
        model0.put("filterModel", filter.model() == null ? "" : filter.model());

        model0.put("activity", page.entries().stream().map(UsageController::activityRow).toList());
        String query = query(filter);
        model0.put("csvHref", "/usage/activity.csv" + (query.isEmpty() ? "" : "?" + query));
        model0.put("previousHref", page.offset() > 0 ? "/usage?" + join(query,
                "offset=" + Math.max(0, page.offset() - PAGE_SIZE)) + "#activity" : null);
        model0.put("nextHref", page.more() ? "/usage?" + join(query, "offset=" + (page.offset() + PAGE_SIZE))
                + "#activity" : null);
        model0.put("firstRow", page.offset() + 1);
        model0.put("lastRow", page.offset() + page.entries().size());
        return pages.page(HttpStatus.OK, request, "usage", "Usage", "usage", model0);
    }

    /** The activity as CSV: the newest {@value #EXPORT_ROWS} matching requests, money as decimal USD strings. */
    @Get(value = "/activity.csv", produces = "text/csv")
    MutableHttpResponse<?> csv(HttpRequest<?> request, @Nullable @QueryValue String key,
            @Nullable @QueryValue String model) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        UsageFilter filter = filterOf(key, model);
        StringBuilder csv = new StringBuilder(4096);
        csv.append("admitted_at,finished_at,request_id,key_name,key_label,model,provider,prompt_tokens,")
                .append("completion_tokens,total_tokens,cost_usd,status,latency_ms\r\n");
        int offset = 0;
        while (offset < EXPORT_ROWS) {
            ActivityPage page = activity.activity(visitor.get().account().id(), filter, offset,
                    Math.min(ListActivityUseCase.MAX_PAGE, EXPORT_ROWS - offset));
            for (Activity row : page.entries()) {
                Csv.row(csv, List.of(iso(row.admittedAt()), iso(row.finishedAt()), row.requestId(),
                        nullToEmpty(row.keyName()), nullToEmpty(row.keyLabel()), row.model(),
                        nullToEmpty(row.provider()), Long.toString(row.promptTokens()),
                        Long.toString(row.completionTokens()),
                        Long.toString(row.promptTokens() + row.completionTokens()), decimalUsd(row.cost()),
                        row.status(), row.latencyMillis() == null ? "" : row.latencyMillis().toString()));
            }
            offset += page.entries().size();
            if (!page.more() || page.entries().isEmpty()) {
                break;
            }
        }
        String filename = "tollgate-activity-" + LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC) + ".csv";
        return HttpResponse.ok(csv.toString())
                .contentType(new MediaType("text/csv; charset=utf-8"))
                .header("Content-Disposition", "attachment; filename=\"" + filename + "\"");
    }

    /** USD with all six decimals, e.g. {@code 0.000034} or {@code 12.500000}: exact, never in exponent form. */
    static String decimalUsd(Usd amount) {
        return BigDecimal.valueOf(amount.micros(), 6).toPlainString();
    }

    /** ISO 8601 in UTC with milliseconds always ({@code ISO_INSTANT} leaves out a fraction of zero). */
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(java.time.ZoneOffset.UTC);

    private static String iso(Instant instant) {
        return instant == null ? "" : MILLIS.format(instant);
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }

    static UsageFilter filterOf(String key, String model) {
        KeyHash hash = key == null || key.isBlank() ? null : KeyHash.parse(key.strip()).orElse(
                new KeyHash("0".repeat(64)));
        // Control characters are in no model id (and PostgreSQL refuses a NUL in text): they are dropped.
        String chosenModel = model == null ? null : model.codePoints().filter(c -> !Character.isISOControl(c))
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString().strip();
        chosenModel = chosenModel == null || chosenModel.isEmpty() ? null : chosenModel;
        if (chosenModel != null && chosenModel.length() > 200) {
            chosenModel = chosenModel.substring(0, 200);
        }
        return new UsageFilter(hash, chosenModel);
    }

    private static String query(UsageFilter filter) {
        List<String> parts = new ArrayList<>();
        if (filter.key() != null) {
            parts.add("key=" + filter.key().hex());
        }
        if (filter.model() != null) {
            parts.add("model=" + URLEncoder.encode(filter.model(), StandardCharsets.UTF_8));
        }
        return String.join("&", parts);
    }

    private static String join(String query, String more) {
        return query.isEmpty() ? more : query + "&" + more;
    }

    private static Map<String, Object> choice(String value, String text, boolean selected) {
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("value", value);
        choice.put("text", text);
        choice.put("selected", selected);
        return choice;
    }

    private static Map<String, Object> dayRow(DailyUsage day) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("day", day.day().toString());
        row.put("spend", DashboardPages.money(day.spend()));
        row.put("tokens", count(day.totalTokens()));
        row.put("requests", count(day.requests()));
        return row;
    }

    private static Map<String, Object> activityRow(Activity a) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("time", SECONDS.format(a.admittedAt()));
        row.put("keyName", a.keyName() == null ? "(unknown key)" : a.keyName());
        row.put("keyLabel", a.keyLabel() == null ? "" : a.keyLabel());
        row.put("model", a.model());
        row.put("provider", a.provider() == null ? "—" : a.provider());
        row.put("tokens", count(a.promptTokens()) + " + " + count(a.completionTokens()));
        row.put("cost", DashboardPages.money(a.cost()));
        row.put("status", a.status());
        row.put("latency", a.latencyMillis() == null ? "—" : count(a.latencyMillis()) + " ms");
        row.put("requestId", a.requestId());
        return row;
    }

    static String count(long value) {
        return String.format(java.util.Locale.ENGLISH, "%,d", value);
    }

    /**
     * RFC 4180 rows: fields with a comma, quote or line break are quoted, and so are those with a semicolon or a tab
     * (a spreadsheet set to a locale whose list separator is ';' splits an unquoted field there, and a key named
     * {@code x;=cmd|…} became a formula cell: an audit); cells that a spreadsheet would run as a formula (starting
     * with =, +, -, @, tab or CR) are prefixed with an apostrophe (OWASP CSV injection).
     */
    static final class Csv {

        private Csv() {
        }

        static void row(StringBuilder out, List<String> fields) {
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(field(fields.get(i)));
            }
            out.append("\r\n");
        }

        static String field(String value) {
            String safe = value;
            if (!safe.isEmpty() && "=+-@\t\r".indexOf(safe.charAt(0)) >= 0) {
                safe = "'" + safe;
            }
            if (safe.indexOf(',') >= 0 || safe.indexOf('"') >= 0 || safe.indexOf('\n') >= 0
                    || safe.indexOf('\r') >= 0 || safe.indexOf(';') >= 0 || safe.indexOf('\t') >= 0) {
                return '"' + safe.replace("\"", "\"\"") + '"';
            }
            return safe;
        }
    }
}
