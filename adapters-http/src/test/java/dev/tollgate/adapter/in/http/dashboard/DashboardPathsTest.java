package dev.tollgate.adapter.in.http.dashboard;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DashboardPathsTest {

    @ParameterizedTest
    @ValueSource(strings = {"/", "", "//", "/login", "/logout", "/signup", "/verify", "/verify/resend", "/settings",
        "/settings/management-keys", "/settings/management-keys/abc/disable", "/outbox", "/keys", "/keys/",
        "/keys/0123abcd", "/keys/0123abcd/disable", "/usage", "/usage/activity.csv", "/balance", "/playground",
        "/assets/app.css", "/webjars/htmx.org/2.0.4/dist/htmx.min.js", "//keys", "/login/", "/keys/no-such-page"})
    void theDashboardsPagesFormsAndAssetsAreCovered(String path) {
        assertTrue(DashboardPaths.covers(path), path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/models", "/v1/public/chat/completions", "/api/v1/keys",
        "/api/v1/keys/0123abcd", "/health", "/health/readiness", "/prometheus", "/keysmith", "/Keys", "/loginx",
        "/v1/keys", "/api/v1/usage"})
    void theModelApiTheControlPlaneAndOperationsAreNot(String path) {
        assertFalse(DashboardPaths.covers(path), path);
    }
}
