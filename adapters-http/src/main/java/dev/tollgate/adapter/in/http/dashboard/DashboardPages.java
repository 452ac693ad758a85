package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.application.port.in.traffic.RateLimitExceededException;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.views.ModelAndView;
import jakarta.inject.Singleton;
import java.math.RoundingMode;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP adapter: what every dashboard page shares — the layout's model (title, navigation, the signed-in
 * visitor, the form token), redirects after a form, and the pages for a refused form or too many attempts.
 * Templates get maps of strings, never domain objects.
 */
@Singleton
final class DashboardPages {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final DashboardSecurity security;

    DashboardPages(DashboardSecurity security) {
        this.security = security;
    }

    /**
     * A page with its status — a refused form keeps its real one (400, 403, 409, …), so that clients and tests tell
     * success from failure. htmx's own requests (a boosted form, {@code HX-Request: true}) are the exception: they
     * get 200 with the real status in {@value #STATUS_HEADER}. htmx swaps the page in either way, and a browser would
     * otherwise note every refused form in its console as a resource that failed to load.
     */
    MutableHttpResponse<?> page(HttpStatus status, HttpRequest<?> request, String template, String title,
            String nav, Map<String, Object> model) {
        Map<String, Object> all = new HashMap<>(model);
        all.put("title", title);
        all.put("nav", nav == null ? "" : nav);
        all.put("csrf", security.formToken(request));
        security.visitor(request).ifPresent(v -> all.put("visitor", visitorModel(v.account())));
        ModelAndView<Map<String, Object>> view = new ModelAndView<>("dashboard/" + template, all);
        if (status.getCode() >= 400 && "true".equals(request.getHeaders().get("HX-Request"))) {
            return HttpResponse.ok(view).header(STATUS_HEADER, Integer.toString(status.getCode()));
        }
        return HttpResponse.status(status).body(view);
    }

    /** The real status of a refused form answered 200 to htmx. */
    static final String STATUS_HEADER = "X-Tollgate-Status";

    MutableHttpResponse<?> page(HttpRequest<?> request, String template, String title, String nav,
            Map<String, Object> model) {
        return page(HttpStatus.OK, request, template, title, nav, model);
    }

    /** After a successful form: see the page at {@code path} (303, so a reload does not post again). */
    static MutableHttpResponse<?> seeOther(String path) {
        return HttpResponse.status(HttpStatus.SEE_OTHER).headers(h -> h.location(URI.create(path)));
    }

    /** What a form of a signed-in page does once its visitor and its token are known to be genuine. */
    @FunctionalInterface
    interface SignedInForm {
        MutableHttpResponse<?> handle(Visitor visitor, Map<String, String> form);
    }

    /**
     * A form that only a signed-in visitor may send: without a session, see the sign-in page; without the
     * session's token, {@link #refusedForm}; otherwise {@code handler} with the visitor and the form's fields.
     */
    MutableHttpResponse<?> signedInForm(HttpRequest<?> request, Map<String, Object> body, SignedInForm handler) {
        Optional<Visitor> visitor = security.visitor(request);
        if (visitor.isEmpty()) {
            return seeOther("/login");
        }
        Map<String, String> form = fields(body);
        if (!security.formIsGenuine(request, form)) {
            return refusedForm(request);
        }
        return handler.handle(visitor.get(), form);
    }

    /** A form without a valid token: refused, nothing changed. */
    MutableHttpResponse<?> refusedForm(HttpRequest<?> request) {
        return page(HttpStatus.FORBIDDEN, request, "message", "Form expired", null, Map.of(
                "heading", "This form has expired",
                "text", "The form did not carry a valid security token — it was open too long, you signed in or "
                        + "out in another tab, or it was not sent from this site. Nothing was changed. Go back, "
                        + "reload the page and try again."));
    }

    MutableHttpResponse<?> tooMany(HttpRequest<?> request, RateLimitExceededException limited, String what) {
        long seconds = limited.refusal().retryAfterSeconds();
        long minutes = Math.max(1, (seconds + 59) / 60);
        return page(HttpStatus.TOO_MANY_REQUESTS, request, "message", "Too many attempts", null, Map.of(
                "heading", "Too many attempts",
                "text", "Too many " + what + " in a short time. Try again in " + minutes
                        + (minutes == 1 ? " minute." : " minutes.")))
                .header("Retry-After", Long.toString(seconds));
    }

    static Map<String, Object> visitorModel(Account account) {
        Map<String, Object> visitor = new LinkedHashMap<>();
        visitor.put("email", account.email().value());
        visitor.put("verified", account.emailVerified());
        visitor.put("balance", money(account.balance())); // every micro-dollar: $0.009999 is not $0.00
        return visitor;
    }

    /** A broken domain rule as a sentence for a form: its own words, capitalised, with a full stop. */
    static String sentence(DomainRuleViolation rule) {
        String message = rule.getMessage();
        return message.isEmpty() ? message : Character.toUpperCase(message.charAt(0)) + message.substring(1) + ".";
    }

    /**
     * An amount as people read money: cents when it is whole cents ({@code $12.50}), else every micro-dollar that
     * matters ({@code $0.000034}) — a request's cost is often far below a cent and must not show as $0.00.
     */
    static String money(Usd amount) {
        java.math.BigDecimal dollars = java.math.BigDecimal.valueOf(amount.micros(), 6).stripTrailingZeros();
        if (dollars.scale() < 2) {
            dollars = dollars.setScale(2, RoundingMode.UNNECESSARY);
        }
        return "$" + dollars.toPlainString();
    }

    /** A paging offset from a query parameter: absent, malformed or negative is 0, larger than {@code max} is max. */
    static int offset(String typed, int max) {
        if (typed == null || typed.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Math.min(max, Integer.parseInt(typed.strip())));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String time(Instant instant) {
        return instant == null ? "" : TIME.format(instant);
    }

    /**
     * A form's fields as strings (repeated fields: the first). The form decoder replaces bytes that are no UTF-8
     * with U+FFFD: such a field is refused (a 400, as on the APIs), not stored as what the decoder made of it — a
     * browser never sends one, and a password read that way would match other byte strings.
     */
    static Map<String, String> fields(Map<String, Object> body) {
        Map<String, String> form = new HashMap<>();
        if (body != null) {
            body.forEach((name, value) -> {
                Object first = value instanceof Iterable<?> many ? many.iterator().hasNext()
                        ? many.iterator().next() : null : value;
                if (first != null) {
                    String text = first.toString();
                    if (text.indexOf('\uFFFD') >= 0) {
                        throw new InvalidRequestException(name, "Form field '" + ApiErrors.shown(name, 64)
                                + "' is not valid UTF-8 text: send the form encoded as UTF-8");
                    }
                    form.put(name, text);
                }
            });
        }
        return form;
    }
}
