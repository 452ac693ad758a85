package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.application.port.in.account.MailUnavailableException;
import dev.tollgate.application.port.in.account.SignUpCommand;
import dev.tollgate.application.port.in.account.SignUpUseCase;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.shared.DomainRuleViolation;
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
import java.util.HashMap;
import java.util.Map;

/**
 * HTTP adapter: {@code GET/POST /signup}. Whether the address is new or registered, the answer is the same "check
 * your inbox" page (the use case sends either a verification link or a notice).
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class SignUpController {

    private final SignUpUseCase signUp;
    private final DashboardPages pages;
    private final DashboardSecurity security;
    private final SourceAddresses sources;

    SignUpController(SignUpUseCase signUp, DashboardPages pages, DashboardSecurity security,
            SourceAddresses sources) {
        this.signUp = signUp;
        this.pages = pages;
        this.security = security;
        this.sources = sources;
    }

    @Get(value = "/signup", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> form(HttpRequest<?> request) {
        if (security.visitor(request).isPresent()) {
            return DashboardPages.seeOther("/");
        }
        return form(HttpStatus.OK, request, "", null);
    }

    @Post(value = "/signup", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> submit(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        Map<String, String> form = DashboardPages.fields(body);
        if (!security.formIsGenuine(request, form)) {
            return pages.refusedForm(request);
        }
        String typed = form.getOrDefault("email", "").strip();
        String password = form.getOrDefault("password", "");
        if (!password.equals(form.getOrDefault("password_repeat", ""))) {
            return form(HttpStatus.BAD_REQUEST, request, typed, "The two passwords are not the same.");
        }
        Email email;
        try {
            email = new Email(typed);
        } catch (DomainRuleViolation e) {
            return form(HttpStatus.BAD_REQUEST, request, typed, "Enter an e-mail address, like name@example.com.");
        }
        try {
            signUp.signUp(new SignUpCommand(email, password, sources.sourceOf(request)));
        } catch (DomainRuleViolation e) {
            return form(HttpStatus.BAD_REQUEST, request, typed, DashboardPages.sentence(e));
        } catch (RateLimitExceededException e) {
            return pages.tooMany(request, e, "sign-ups or mails for this address or from your network");
        } catch (MailUnavailableException e) {
            return form(HttpStatus.SERVICE_UNAVAILABLE, request, typed,
                    "We could not send the e-mail just now. Try again in a few minutes.");
        }
        return pages.page(request, "message", "Check your inbox", null, Map.of(
                "heading", "Check your inbox",
                "text", "We sent a mail to " + email.value() + ". Open the link in it within 24 hours to confirm "
                        + "your address, then sign in. If you already have an account, the mail says so instead.",
                "link", "/login", "linkText", "Go to sign-in"));
    }

    private MutableHttpResponse<?> form(HttpStatus status, HttpRequest<?> request, String email, String error) {
        Map<String, Object> model = new HashMap<>();
        model.put("email", email);
        model.put("minLength", Password.MIN_LENGTH);
        model.put("maxLength", Password.MAX_LENGTH);
        if (error != null) {
            model.put("error", error);
        }
        return pages.page(status, request, "signup", "Sign up", "signup", model);
    }
}
