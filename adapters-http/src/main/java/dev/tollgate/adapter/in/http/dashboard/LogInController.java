package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.application.port.in.session.InvalidCredentialsException;
import dev.tollgate.application.port.in.session.LogInCommand;
import dev.tollgate.application.port.in.session.LogInUseCase;
import dev.tollgate.application.port.in.session.LogOutUseCase;
import dev.tollgate.application.port.in.session.SignedIn;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * HTTP adapter: {@code GET/POST /login} and {@code POST /logout}. A failed sign-in answers 400 with one message
 * whatever the reason, so the page never tells whether an address has an account.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class LogInController {

    private final LogInUseCase logIn;
    private final LogOutUseCase logOut;
    private final DashboardPages pages;
    private final DashboardSecurity security;
    private final SourceAddresses sources;
    private final Clock clock;

    LogInController(LogInUseCase logIn, LogOutUseCase logOut, DashboardPages pages, DashboardSecurity security,
            SourceAddresses sources, Clock clock) {
        this.logIn = logIn;
        this.logOut = logOut;
        this.pages = pages;
        this.security = security;
        this.sources = sources;
        this.clock = clock;
    }

    @Get(value = "/login", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> form(HttpRequest<?> request) {
        if (security.visitor(request).isPresent()) {
            return DashboardPages.seeOther("/");
        }
        return form(HttpStatus.OK, request, "", null);
    }

    @Post(value = "/login", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> submit(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        Map<String, String> form = DashboardPages.fields(body);
        if (!security.formIsGenuine(request, form)) {
            return pages.refusedForm(request);
        }
        String email = form.getOrDefault("email", "").strip();
        SignedIn signedIn;
        try {
            signedIn = logIn.logIn(new LogInCommand(email, form.getOrDefault("password", ""),
                    sources.sourceOf(request), security.sessionCookie(request).orElse(null)));
        } catch (InvalidCredentialsException e) {
            return form(HttpStatus.BAD_REQUEST, request, email, e.getMessage());
        } catch (RateLimitExceededException e) {
            return pages.tooMany(request, e, "sign-in attempts for this address or from your network");
        }
        Duration maxAge = Duration.between(clock.instant(), signedIn.session().expiresAt());
        return DashboardPages.seeOther("/").cookie(security.sessionCookie(request, signedIn.token(), maxAge));
    }

    @Post(value = "/logout", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> logOut(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        Map<String, String> form = DashboardPages.fields(body);
        if (security.visitor(request).isPresent() && !security.formIsGenuine(request, form)) {
            return pages.refusedForm(request);
        }
        security.sessionCookie(request).ifPresent(logOut::logOut);
        return DashboardPages.seeOther("/login").cookie(security.clearedSessionCookie(request));
    }

    private MutableHttpResponse<?> form(HttpStatus status, HttpRequest<?> request, String email, String error) {
        Map<String, Object> model = new HashMap<>();
        model.put("email", email);
        if (error != null) {
            model.put("error", error);
        }
        return pages.page(status, request, "login", "Sign in", "login", model);
    }
}
