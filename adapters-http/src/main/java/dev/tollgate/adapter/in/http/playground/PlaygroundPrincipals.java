package dev.tollgate.adapter.in.http.playground;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.http.cookie.SameSite;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HTTP adapter: the browser principal of an anonymous playground visitor (§8.2) — an id the gateway issues in an
 * HttpOnly, SameSite=Lax cookie signed with HMAC-SHA-256, so the per-principal limits count one browser. A missing,
 * forged or foreign cookie earns a fresh principal; that gains nothing, since the per-IP limits are as tight. All
 * instances must share {@code tollgate.playground.cookie-secret}; without one, a random secret per process is
 * used and principals last until the process restarts.
 */
@Singleton
@ServerFilter("/v1/public/**")
public final class PlaygroundPrincipals {

    static final String COOKIE = "tollgate_playground";
    private static final String ISSUED = "tollgate.playground.issued";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] secret;
    private final String secureMode;

    public PlaygroundPrincipals(@Value("${tollgate.playground.cookie-secret:}") String secret,
            @Value("${tollgate.playground.cookie-secure:auto}") String secureMode) {
        if (secret.isBlank()) {
            this.secret = new byte[32];
            RANDOM.nextBytes(this.secret);
        } else {
            this.secret = secret.getBytes(StandardCharsets.UTF_8);
        }
        String mode = secureMode.strip().toLowerCase(java.util.Locale.ROOT);
        if (!mode.equals("auto") && !mode.equals("true") && !mode.equals("false")) {
            throw new IllegalArgumentException("tollgate.playground.cookie-secure must be auto, true or false");
        }
        this.secureMode = mode;
    }

    /** The request's principal: the one its cookie proves, or a new one (its cookie goes out with the answer). */
    public String principalOf(HttpRequest<?> request) {
        Optional<String> known = request.getCookies().findCookie(COOKIE).map(Cookie::getValue).flatMap(this::verify);
        if (known.isPresent()) {
            return known.get();
        }
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        String principal = B64.encodeToString(id);
        request.setAttribute(ISSUED, principal + "." + sign(principal));
        return principal;
    }

    private Optional<String> verify(String value) {
        int dot = value.indexOf('.');
        if (dot != 22 || value.length() != 45) {
            return Optional.empty();
        }
        String principal = value.substring(0, dot);
        byte[] expected = sign(principal).getBytes(StandardCharsets.US_ASCII);
        byte[] given = value.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given) ? Optional.of(principal) : Optional.empty();
    }

    private String sign(String principal) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] tag = mac.doFinal(("playground-principal:" + principal).getBytes(StandardCharsets.UTF_8));
            return B64.encodeToString(java.util.Arrays.copyOf(tag, 16));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available", e);
        }
    }

    /** Sends a newly issued principal's cookie with whatever the answer is (errors and streams included). */
    @ResponseFilter
    public void issueCookie(HttpRequest<?> request, MutableHttpResponse<?> response) {
        request.getAttribute(ISSUED, String.class).ifPresent(value -> response.cookie(Cookie.of(COOKIE, value)
                .httpOnly(true)
                .sameSite(SameSite.Lax)
                .path("/")
                .maxAge(Duration.ofDays(365))
                .secure(secureMode.equals("true") || (secureMode.equals("auto") && request.isSecure()))));
    }
}
