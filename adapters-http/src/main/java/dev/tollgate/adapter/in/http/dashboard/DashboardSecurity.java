package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.account.FindAccountUseCase;
import dev.tollgate.application.port.in.session.InvalidFormTokenException;
import dev.tollgate.application.port.in.session.ResolveSessionUseCase;
import dev.tollgate.application.port.in.session.SessionRequiredException;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.session.SessionToken;
import dev.tollgate.domain.shared.SigningKey;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.http.cookie.SameSite;
import io.micronaut.http.filter.ConditionalFilter;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP adapter: who is signed in on the dashboard, and whether a form really came from one of its pages (CSRF).
 *
 * <ul>
 * <li>The session token travels only in the {@code tollgate_session} cookie: HttpOnly, SameSite=Lax, path /,
 *     Secure when the request came over TLS (or always / never, {@code tollgate.dashboard.cookie-secure}).</li>
 * <li>Every state-changing form carries a {@code csrf} field. Signed in, it must equal the session's synchronizer
 *     token (compared in constant time). Signed out (sign-up, sign-in, the verification link), it is a signed
 *     double submit: the browser holds a random {@code tollgate_form} cookie and the form carries the HMAC of it
 *     under the dashboard secret, which another site can neither read nor make.</li>
 * <li>Every dashboard answer ({@link DashboardPaths}) carries a strict Content-Security-Policy (own scripts and
 *     styles only), no framing, no referrer (verification links carry a token), no caching (pages may show a new
 *     key once).</li>
 * </ul>
 */
@Singleton
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public final class DashboardSecurity implements ConditionalFilter {

    static final String SESSION_COOKIE = "tollgate_session";
    static final String FORM_COOKIE = "tollgate_form";
    static final String CSRF_FIELD = "csrf";
    /** The header in which the dashboard's scripts send the session's form token. */
    public static final String FORM_TOKEN_HEADER = "X-Tollgate-Form-Token";
    private static final String VISITOR = "tollgate.dashboard.visitor";
    private static final String ISSUED_FORM_COOKIE = "tollgate.dashboard.form-cookie";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final ResolveSessionUseCase sessions;
    private final FindAccountUseCase accounts;
    private final SigningKey key;
    private final String secureMode;
    private final java.time.Clock clock;

    /** The one file of htmx's WebJar the pages load. */
    static final String HTMX = "/webjars/htmx.org/2.0.4/dist/htmx.min.js";

    DashboardSecurity(ResolveSessionUseCase sessions, FindAccountUseCase accounts, SigningKey key,
            @Value("${tollgate.dashboard.cookie-secure:auto}") String secureMode, java.time.Clock clock) {
        String mode = secureMode.strip().toLowerCase(java.util.Locale.ROOT);
        if (!mode.equals("auto") && !mode.equals("true") && !mode.equals("false")) {
            throw new IllegalArgumentException("tollgate.dashboard.cookie-secure must be auto, true or false");
        }
        this.sessions = sessions;
        this.accounts = accounts;
        this.key = key;
        this.secureMode = mode;
        this.clock = clock;
    }

    /**
     * Static files are the dashboard's own and htmx's script: a directory (served as an empty 200 with a content type
     * guessed from its name) and the WebJar's other files (extensions, editor data: script gadgets under the pages'
     * {@code script-src 'self'}) are not found, as an audit asked.
     */
    @io.micronaut.http.annotation.RequestFilter
    @io.micronaut.core.annotation.Nullable
    public MutableHttpResponse<?> staticFiles(HttpRequest<?> request) {
        String path = request.getPath();
        boolean webjar = path.startsWith("/webjars/");
        if ((webjar || path.startsWith("/assets/")) && (path.endsWith("/") || webjar && !path.equals(HTMX))) {
            return dev.tollgate.adapter.in.http.common.ApiErrors.respond(request, io.micronaut.http.HttpStatus.NOT_FOUND,
                    "No such route: " + request.getMethodName() + " " + path,
                    dev.tollgate.adapter.in.http.common.ApiErrors.genericModelError(
                            io.micronaut.http.HttpStatus.NOT_FOUND, null), clock);
        }
        return null;
    }

    /** The signed-in visitor of this request, if its session cookie names a live session. */
    Optional<Visitor> visitor(HttpRequest<?> request) {
        @SuppressWarnings("unchecked")
        Optional<Visitor> known = request.getAttribute(VISITOR, Optional.class).map(o -> (Optional<Visitor>) o)
                .orElse(null);
        if (known != null) {
            return known;
        }
        Optional<Visitor> visitor = sessionCookie(request).flatMap(sessions::resolve).flatMap(session -> {
            try {
                return Optional.of(new Visitor(session, accounts.byId(session.accountId())));
            } catch (AccountNotFoundException e) {
                return Optional.empty();
            }
        });
        request.setAttribute(VISITOR, visitor);
        return visitor;
    }

    /**
     * The signed-in account of a script's request on another route (the playground's {@code fetch}): it must carry
     * the session cookie and, in the {@value #FORM_TOKEN_HEADER} header, the session's form token — a cross-site
     * page can make the browser send the cookie (SameSite=Lax aside), never the header with the token.
     *
     * @throws SessionRequiredException no live session
     * @throws InvalidFormTokenException a live session but not its token
     */
    public Account scriptAccount(HttpRequest<?> request) {
        Visitor visitor = visitor(request).orElseThrow(SessionRequiredException::new);
        String sent = request.getHeaders().get(FORM_TOKEN_HEADER);
        if (sent == null || !MessageDigest.isEqual(visitor.session().csrfToken().getBytes(StandardCharsets.US_ASCII),
                sent.strip().getBytes(StandardCharsets.US_ASCII))) {
            throw new InvalidFormTokenException();
        }
        return visitor.account();
    }

    /** The raw session cookie value, if any (for sign-out and for ending the old session at sign-in). */
    Optional<String> sessionCookie(HttpRequest<?> request) {
        return request.getCookies().findCookie(SESSION_COOKIE).map(Cookie::getValue);
    }

    /** The value a form of this page must send back in its {@code csrf} field. */
    String formToken(HttpRequest<?> request) {
        Optional<Visitor> visitor = visitor(request);
        if (visitor.isPresent()) {
            return visitor.get().session().csrfToken();
        }
        String nonce = request.getCookies().findCookie(FORM_COOKIE).map(Cookie::getValue)
                .filter(DashboardSecurity::isNonce)
                .or(() -> request.getAttribute(ISSUED_FORM_COOKIE, String.class))
                .orElseGet(() -> {
                    byte[] bytes = new byte[32];
                    RANDOM.nextBytes(bytes);
                    String fresh = HexFormat.of().formatHex(bytes);
                    request.setAttribute(ISSUED_FORM_COOKIE, fresh);
                    return fresh;
                });
        return key.signHex("dashboard-form:" + nonce);
    }

    /** Whether the form's {@code csrf} field proves it came from a page of this dashboard, for this browser. */
    boolean formIsGenuine(HttpRequest<?> request, Map<String, String> form) {
        String sent = form.get(CSRF_FIELD);
        if (sent == null || sent.length() != 64) {
            return false;
        }
        Optional<Visitor> visitor = visitor(request);
        if (visitor.isPresent()) {
            return MessageDigest.isEqual(visitor.get().session().csrfToken().getBytes(StandardCharsets.US_ASCII),
                    sent.getBytes(StandardCharsets.US_ASCII));
        }
        return request.getCookies().findCookie(FORM_COOKIE).map(Cookie::getValue).filter(DashboardSecurity::isNonce)
                .map(nonce -> key.verifiesHex("dashboard-form:" + nonce, sent)).orElse(false);
    }

    Cookie sessionCookie(HttpRequest<?> request, SessionToken token, Duration maxAge) {
        return Cookie.of(SESSION_COOKIE, token.reveal()).httpOnly(true).sameSite(SameSite.Lax).path("/")
                .maxAge(maxAge).secure(secure(request));
    }

    Cookie clearedSessionCookie(HttpRequest<?> request) {
        return Cookie.of(SESSION_COOKIE, "").httpOnly(true).sameSite(SameSite.Lax).path("/").maxAge(0)
                .secure(secure(request));
    }

    private boolean secure(HttpRequest<?> request) {
        return secureMode.equals("true") || (secureMode.equals("auto") && request.isSecure());
    }

    private static boolean isNonce(String value) {
        return value.length() == 64 && value.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    /** The filter runs on the dashboard's paths only. */
    @Override
    public boolean isEnabled(HttpRequest<?> request) {
        return DashboardPaths.covers(request.getPath());
    }

    /** Security headers on every dashboard answer, and the form cookie of a browser that had none. */
    @ResponseFilter
    public void headers(HttpRequest<?> request, MutableHttpResponse<?> response) {
        var headers = response.getHeaders();
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("X-Frame-Options", "DENY");
        String path = request.getPath();
        if (path.startsWith("/assets/") || path.startsWith("/webjars/")) {
            headers.set("Cache-Control", "public, max-age=3600");
        } else {
            headers.set("Content-Security-Policy", CSP);
            headers.set("Cache-Control", "no-store");
        }
        request.getAttribute(ISSUED_FORM_COOKIE, String.class).ifPresent(nonce -> response.cookie(
                Cookie.of(FORM_COOKIE, nonce).httpOnly(true).sameSite(SameSite.Lax).path("/")
                        .secure(secure(request))));
    }
}
