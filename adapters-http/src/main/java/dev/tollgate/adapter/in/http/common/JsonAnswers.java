package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * HTTP adapter: the JSON routes ({@code /api/v1/keys*}, {@code /v1/models*}) answer JSON whatever the
 * {@code Accept} header asks, as OpenAI's and OpenRouter's do: they declare that they produce any type, so that
 * {@code Accept: application/*} or {@code *}{@code /json} is not refused with 406, and this filter labels the
 * answer {@code application/json} where the framework would have echoed the wildcard the client sent.
 */
@ServerFilter({"/api/v1/keys", "/api/v1/keys/**", "/v1/models", "/v1/models/**"})
public final class JsonAnswers {

    @ResponseFilter
    public void label(HttpRequest<?> request, MutableHttpResponse<?> response) {
        MediaType type = response.getContentType().orElse(null);
        // A HEAD answer has no body, but the headers of the GET it stands for (RFC 9110 §9.3.2).
        boolean head = request.getMethod() == HttpMethod.HEAD && response.code() < 300;
        if ((response.body() != null || head)
                && (type == null || type.getType().equals("*") || type.getSubtype().equals("*"))) {
            response.contentType(MediaType.APPLICATION_JSON_TYPE);
        }
    }
}
