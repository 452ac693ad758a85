package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.server.cors.CrossOrigin;

/**
 * HTTP adapter: the base of the controllers of the key-authenticated APIs ({@code /v1} model routes, {@code /api/v1}
 * control plane), which any web page, browser extension or editor plug-in may call, as OpenAI's and OpenRouter's
 * APIs allow ({@link CrossOrigin} is inherited). A call needs a key the page must have been given, and the browser
 * sends no cookie with it ({@code allowCredentials = false}), so a page cannot act with a visitor's dashboard
 * session. The dashboard, its outbox and the cookie-based public playground do not extend it: Micronaut refuses a
 * foreign page calling them on localhost.
 */
@CrossOrigin(allowedOriginsRegex = "^.*$", allowCredentials = false, maxAge = 600,
        exposedHeaders = {"x-request-id", "retry-after", "x-should-retry", "x-ratelimit-limit-requests",
            "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", "x-ratelimit-scope-requests",
            "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens",
            "x-ratelimit-scope-tokens"})
public abstract class CrossOriginApi {

    protected CrossOriginApi() {
    }
}
