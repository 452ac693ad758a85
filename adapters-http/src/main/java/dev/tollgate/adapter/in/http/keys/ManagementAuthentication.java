package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.application.port.in.auth.AuthenticateManagementKeyUseCase;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.domain.shared.RawKey;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.util.List;

/** HTTP adapter: reads {@code Authorization: Bearer <gpm-key>} (§5.1) and authenticates it. */
@Singleton
public final class ManagementAuthentication {

    private final AuthenticateManagementKeyUseCase authenticate;

    ManagementAuthentication(AuthenticateManagementKeyUseCase authenticate) {
        this.authenticate = authenticate;
    }

    public ManagementPrincipal principal(HttpRequest<?> request) {
        return authenticate.authenticate(bearerToken(request));
    }

    /**
     * The token of the request's one {@code Bearer} credential, or {@code null} when there is none — or more than
     * one: two {@code Authorization} headers are ambiguous, and neither is guessed at — or when the URL carries a
     * key as well (G12: keys only in {@code Authorization}; a key in a URL lands in proxy and browser logs, and a
     * request that sends one is refused whatever its header says, so that the habit fails at once).
     */
    public static String bearerToken(HttpRequest<?> request) {
        List<String> headers = request.getHeaders().getAll(HttpHeaders.AUTHORIZATION);
        if (headers.size() != 1 || keyInUrl(request)) {
            return null;
        }
        return bearerToken(headers.get(0));
    }

    /** Whether the URL's query (decoded, up to three times) holds a {@code gp-} or {@code gpm-} key anywhere. */
    public static boolean keyInUrl(HttpRequest<?> request) {
        String query = request.getUri().getRawQuery();
        if (query == null || query.isEmpty()) {
            return false;
        }
        String text = query;
        for (int pass = 0; pass <= 3; pass++) {
            // Anywhere: a parameter's name or value, whole, quoted, prefixed (Bearer, token:) — an audit found
            // ?<key>, ?key="<key>" and ?auth=x+<key> let through when only whole values were looked at.
            if (RawKey.startsIn(text)) {
                return true;
            }
            String decoded = decoded(text);
            if (decoded.equals(text)) {
                return false;
            }
            text = decoded;
        }
        return false;
    }

    /** {@code text} percent-decoded ({@code +} a space); a malformed escape stays as it is. */
    private static String decoded(String text) {
        StringBuilder out = new StringBuilder(text.length());
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int high = c == '%' && i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
            if (low >= 0) {
                bytes.write(high * 16 + low);
                i += 2;
                continue;
            }
            if (bytes.size() > 0) {
                out.append(bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
                bytes.reset();
            }
            out.append(c == '+' ? ' ' : c);
        }
        out.append(bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
        return out.toString();
    }

    /** The token of a {@code Bearer} credential, or {@code null} when there is none. */
    public static String bearerToken(String header) {
        if (header == null) {
            return null;
        }
        String trimmed = header.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0 || !trimmed.substring(0, space).equalsIgnoreCase("Bearer")) {
            return null;
        }
        return trimmed.substring(space + 1).strip();
    }
}
