package dev.tollgate.adapter.in.http.dashboard;

import java.util.Set;

/**
 * HTTP adapter: which request paths are the dashboard's — its pages, its form posts, its assets. The dashboard's
 * filters ({@link DashboardSecurity}, {@link DashboardViews}) run for these paths only, decided here once per
 * request with a look at the first path segment, instead of by a list of path patterns that the framework would
 * match one by one against every request of the model API (a CPU profile of chat completions found 4 % of its
 * samples in that matching).
 */
final class DashboardPaths {

    /** First path segments of the dashboard's routes; "/" alone is its overview. */
    private static final Set<String> ROOTS = Set.of("login", "logout", "signup", "verify", "settings", "outbox",
            "keys", "usage", "balance", "playground", "assets", "webjars");

    private DashboardPaths() {
    }

    /**
     * Whether {@code path} is the dashboard's: "/" or a path whose first segment is one of the dashboard's (empty
     * segments skipped, as the router skips them). Generous on purpose: a path under a dashboard segment that no
     * route serves (a 404) is the dashboard's too, and gets its security headers.
     */
    static boolean covers(String path) {
        int start = 0;
        int length = path.length();
        while (start < length && path.charAt(start) == '/') {
            start++;
        }
        if (start == length) {
            return true;
        }
        int end = path.indexOf('/', start);
        return ROOTS.contains(path.substring(start, end < 0 ? length : end));
    }
}
