package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.usage.BalanceStatement;
import dev.tollgate.application.port.in.usage.ViewBalanceUseCase;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP adapter: Balance — what the signed-in account can spend, all its credits and spend, and the ledger of the
 * last 90 days: each credit (with the balance right after it) and each day's spend. No payment form: the operator
 * credits accounts, unless a payment provider is wired.
 */
@Controller("/balance")
@ExecuteOn(TaskExecutors.BLOCKING)
public class BalanceController {

    static final int DAYS = 90;

    private final ViewBalanceUseCase balance;
    private final DashboardPages pages;
    private final DashboardSecurity security;

    BalanceController(ViewBalanceUseCase balance, DashboardPages pages, DashboardSecurity security) {
        this.balance = balance;
        this.pages = pages;
        this.security = security;
    }

    @Get(produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> page(HttpRequest<?> request) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return DashboardPages.seeOther("/login");
        }
        BalanceStatement statement = balance.statement(visitor.get().account().id(), DAYS);
        Map<String, Object> model = new HashMap<>();
        model.put("balance", DashboardPages.money(statement.balance()));
        model.put("totalCredits", DashboardPages.money(statement.totalCredits()));
        model.put("totalSpend", DashboardPages.money(statement.totalSpend()));
        model.put("periodStart", statement.periodStart().toString());
        model.put("lines", statement.lines().stream().map(line -> {
            Map<String, Object> row = new LinkedHashMap<>();
            boolean credit = line.kind() == BalanceStatement.Line.Kind.CREDIT;
            row.put("kind", line.kind().name().toLowerCase(Locale.ROOT));
            row.put("at", credit ? DashboardPages.time(line.at()) : line.at().toString().substring(0, 10));
            row.put("description", credit ? line.description() : "Spend: " + UsageController.count(line.requests())
                    + (line.requests() == 1 ? " request" : " requests"));
            row.put("amount", (credit ? "+" : "−") + DashboardPages.money(line.amount()));
            row.put("balanceAfter", line.balanceAfter() == null ? "—" : DashboardPages.money(line.balanceAfter()));
            return row;
        }).toList());
        model.put("topUpProvider", statement.topUp().map(t -> t.provider()).orElse(null));
        model.put("topUpHref", statement.topUp().map(t -> t.checkoutUrl()).orElse(null));
        return pages.page(HttpStatus.OK, request, "balance", "Balance", "balance", model);
    }
}
