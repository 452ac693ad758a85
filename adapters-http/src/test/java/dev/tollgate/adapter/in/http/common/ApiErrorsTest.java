package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which surface's envelope (§7.1 or §7.2) an error takes, by its path. */
class ApiErrorsTest {

    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/keys", "/api/v1/keys/abc?x=1", "//api/v1/keys", "///api/v1/keys/x", "/api/",
            "/api//v1/keys"})
    void controlPlanePathsTakeItsEnvelope(String path) {
        assertTrue(ApiErrors.isControlPlane(path), path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/", "//", "/api", "/apix/v1", "/v1/chat/completions", "//v1/models", "/v1/api/x",
            "api/v1/keys", "/%61pi/v1/keys"})
    void otherPathsDoNot(String path) {
        assertFalse(ApiErrors.isControlPlane(path), path);
    }

    /** A number quoted back as the client may read it: plain while short, else as JSON writes it, unpadded. */
    @org.junit.jupiter.api.Test
    void numbersQuotedBackArePlainWhileShortAndWithoutPaddingWhenLong() {
        org.junit.jupiter.api.Assertions.assertEquals("0.0000001", ApiErrors.shown(new java.math.BigDecimal("1e-7")));
        org.junit.jupiter.api.Assertions.assertEquals("1e-41",
                ApiErrors.shown(new java.math.BigDecimal("1.00000000000000000000e-41")));
        org.junit.jupiter.api.Assertions.assertEquals("1.5e+40", ApiErrors.shown(new java.math.BigDecimal("1.50e40")));
    }

    /** G10: a key a client sent in a field's value or name is not quoted back in either surface's error. */
    @org.junit.jupiter.api.Test
    void keysQuotedInAMessageAreMaskedInBothEnvelopes() {
        String gp = "gp-1uV0x0f6AfrCN41733a5XAeMPWtHTq2l0zOlPf";
        String gpm = "gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV";
        for (boolean controlPlane : new boolean[] {true, false}) {
            java.util.Map<String, Object> body = ApiErrors.body(controlPlane, io.micronaut.http.HttpStatus.BAD_REQUEST,
                    "expires_at must be a date, got '" + gp + "'; Unknown field '" + gpm + "'; cut 'gp-1uV0x0f6AfrCN417…'; "
                    + "glued 'x" + gp + "'",
                    ApiErrors.genericModelError(io.micronaut.http.HttpStatus.BAD_REQUEST, "messages[0]." + gp),
                    "req", java.time.Clock.systemUTC());
            java.util.Map<?, ?> error = (java.util.Map<?, ?>) body.get("error");
            org.junit.jupiter.api.Assertions.assertEquals("expires_at must be a date, got 'gp-[masked]'; Unknown field "
                    + "'gpm-[masked]'; cut 'gp-[masked]…'; glued 'xgp-[masked]'", error.get("message"));
            if (!controlPlane) {
                org.junit.jupiter.api.Assertions.assertEquals("messages[0].gp-[masked]", error.get("param"),
                        "a field's name in param is what the client sent too");
            }
        }
        org.junit.jupiter.api.Assertions.assertEquals("use gpt-4o or a gp- key", ApiErrors.withoutKeys("use gpt-4o or a gp- key"));
        org.junit.jupiter.api.Assertions.assertEquals("model 'acme/gp-superlarge1' produces at most 16384 tokens",
                ApiErrors.withoutKeys("model 'acme/gp-superlarge1' produces at most 16384 tokens"),
                "a model id is named as it is");
        org.junit.jupiter.api.Assertions.assertNull(ApiErrors.withoutKeys(null));
    }
}
