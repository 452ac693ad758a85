package dev.tollgate.adapter.in.http.dashboard;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;

/** HTTP adapter: {@code GET /}, the signed-in account's overview (e-mail, verification, balance). */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class OverviewController {

    private final DashboardPages pages;
    private final DashboardSecurity security;

    OverviewController(DashboardPages pages, DashboardSecurity security) {
        this.pages = pages;
        this.security = security;
    }

    @Get(value = "/", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> overview(HttpRequest<?> request) {
        if (security.visitor(request).isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        return pages.page(request, "overview", "Overview", "overview", Map.of());
    }
}
