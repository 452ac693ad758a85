package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.application.port.in.account.MailUnavailableException;
import dev.tollgate.application.port.in.account.ResendVerificationUseCase;
import dev.tollgate.application.port.in.account.VerifyEmailLinkUseCase;
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
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;

/**
 * HTTP adapter: the verification link. {@code GET /verify?token=…} only shows a form (link scanners that open
 * every URL in a mail change nothing); its {@code POST} verifies, with the password chosen at sign-up. {@code POST /verify/resend} mails a signed-in,
 * unverified account a new link.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class EmailVerificationController {

    private final VerifyEmailLinkUseCase verifyLink;
    private final ResendVerificationUseCase resend;
    private final DashboardPages pages;
    private final DashboardSecurity security;
    private final SourceAddresses sources;

    EmailVerificationController(VerifyEmailLinkUseCase verifyLink, ResendVerificationUseCase resend,
            DashboardPages pages, DashboardSecurity security, SourceAddresses sources) {
        this.verifyLink = verifyLink;
        this.resend = resend;
        this.pages = pages;
        this.security = security;
        this.sources = sources;
    }

    @Get(value = "/verify", produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> confirm(HttpRequest<?> request, @Nullable @QueryValue("token") String token) {
        if (token == null || token.isBlank() || token.length() > 200) {
            return invalid(request);
        }
        return pages.page(request, "verify", "Confirm your e-mail address", null, Map.of("token", token));
    }

    @Post(value = "/verify", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> verify(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        Map<String, String> form = DashboardPages.fields(body);
        if (!security.formIsGenuine(request, form)) {
            return pages.refusedForm(request);
        }
        try {
            if (!verifyLink.verify(form.getOrDefault("token", ""), form.getOrDefault("password", ""),
                    sources.sourceOf(request))) {
                return invalid(request);
            }
        } catch (RateLimitExceededException e) {
            return pages.tooMany(request, e, "sign-in attempts");
        }
        boolean signedIn = security.visitor(request).isPresent();
        return pages.page(request, "message", "E-mail address confirmed", null, Map.of(
                "heading", "Your e-mail address is confirmed",
                "text", "You can now create management keys, and the management API (/api/v1/keys) accepts them.",
                "link", signedIn ? "/settings/management-keys" : "/login",
                "linkText", signedIn ? "Go to management keys" : "Sign in"));
    }

    @Post(value = "/verify/resend", consumes = MediaType.APPLICATION_FORM_URLENCODED, produces = MediaType.TEXT_HTML)
    MutableHttpResponse<?> resend(HttpRequest<?> request, @Nullable @Body Map<String, Object> body) {
        return pages.signedInForm(request, body, (visitor, form) -> resend(request, visitor));
    }

    private MutableHttpResponse<?> resend(HttpRequest<?> request, Visitor visitor) {
        if (visitor.account().emailVerified()) {
            return pages.page(request, "message", "Already confirmed", null, Map.of(
                    "heading", "Your e-mail address is already confirmed",
                    "text", "No new link is needed: " + visitor.account().email().value() + " is confirmed.",
                    "link", "/", "linkText", "Back to the overview"));
        }
        try {
            resend.resend(visitor.account().id(), sources.sourceOf(request));
        } catch (RateLimitExceededException e) {
            return pages.tooMany(request, e, "verification mails");
        } catch (MailUnavailableException e) {
            return pages.page(HttpStatus.SERVICE_UNAVAILABLE, request, "message", "Mail not sent", null, Map.of(
                    "heading", "The mail could not be sent",
                    "text", "We could not send the e-mail just now. Try again in a few minutes.",
                    "link", "/", "linkText", "Back to the overview"));
        }
        return pages.page(request, "message", "Link sent", null, Map.of(
                "heading", "A new link is on its way",
                "text", "We sent a new verification link to " + visitor.account().email().value()
                        + ". It works for 24 hours.",
                "link", "/", "linkText", "Back to the overview"));
    }

    private MutableHttpResponse<?> invalid(HttpRequest<?> request) {
        boolean signedIn = security.visitor(request).isPresent();
        return pages.page(HttpStatus.BAD_REQUEST, request, "message", "Link not valid", null, Map.of(
                "heading", "This link is not valid",
                "text", "The verification link is incomplete, was made for another address or has expired (links "
                        + "work for 24 hours), or the password is not the one chosen at the latest sign-up with "
                        + "this address. " + (signedIn ? "Ask for a new link on the overview page."
                                : "If you did not sign up again yourself, sign up once more: a new sign-up of an "
                                        + "unconfirmed address replaces its password."),
                "link", signedIn ? "/" : "/login",
                "linkText", signedIn ? "Go to the overview" : "Sign in"));
    }
}
