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
}
