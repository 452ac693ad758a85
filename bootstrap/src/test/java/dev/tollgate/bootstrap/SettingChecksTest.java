package dev.tollgate.bootstrap;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.env.DefaultEnvironment;
import io.micronaut.context.env.Environment;
import io.micronaut.context.env.PropertySource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SettingChecksTest {

    private static Environment environment(Map<String, Object> settings) {
        DefaultEnvironment environment = new DefaultEnvironment(() -> List.of("settings-check"));
        environment.addPropertySource(PropertySource.of("test", settings));
        environment.start();
        return environment;
    }

    private static void refused(String property, String value, String says) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new SettingChecks(environment(Map.of(property, value))), property + "=" + value);
        assertTrue(refused.getMessage().contains(SettingChecks.named(property)), refused.getMessage());
        assertTrue(refused.getMessage().contains(says), refused.getMessage());
    }

    @Test
    void durationsThatWouldHalfStartOrFailEveryRequestAreRefusedNamingTheVariable() {
        refused("tollgate.completions.sweep-interval", "0s", "positive");
        refused("tollgate.completions.sweep-interval", "-1s", "positive");
        refused("tollgate.completions.sweep-interval", "5", "with a unit");
        refused("tollgate.completions.first-byte-timeout", "200000d", "at most 366d");
        refused("tollgate.completions.idle-timeout", "soon", "with a unit");
        refused("tollgate.http.request-head-timeout", "0s", "positive");
        refused("tollgate.shutdown.settle-wait", "-1s", "not be negative");
        refused("tollgate.dashboard.verification-lifetime", "0s", "positive");
        refused("tollgate.playground.user-billed", "ture", "true or false");
        refused("tollgate.datasource.lookup-timeout", "0s", "positive");
        refused("tollgate.admission-timeout", "0s", "positive");
        refused("tollgate.admission-timeout", "soon", "with a unit");
        refused("tollgate.billing.refusal-wait", "-1s", "not be negative");
        // A hold's waits for money on its way end before the admission deadline, or a 429 would become a 503.
        refused("tollgate.billing.refusal-wait", "900ms", "must be shorter than TOLLGATE_ADMISSION_TIMEOUT");
        IllegalArgumentException longWait = assertThrows(IllegalArgumentException.class,
                () -> new SettingChecks(environment(Map.of("tollgate.admission-timeout", "2s",
                        "tollgate.billing.refusal-wait", "3s"))));
        assertTrue(longWait.getMessage().contains("3000 ms and 2000 ms"), longWait.getMessage());
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.admission-timeout", "2s",
                "tollgate.billing.refusal-wait", "1500ms"))));
        refused("tollgate.http.forwarded-header", "x-real-ip", "x-forwarded-for or forwarded");
        refused("tollgate.http.trusted-proxies", "10.0.0.0/8,notacidr", "'notacidr' is not an IP address");
        // Framework settings the operations table lists (an audit: "abc" failed in the framework's words without the
        // variable, and 0s silently kept idle connections for ever; a boolean typo was read as false).
        refused("micronaut.server.idle-timeout", "abc", "with a unit");
        refused("micronaut.server.idle-timeout", "300", "with a unit");
        refused("micronaut.server.idle-timeout", "0s", "positive");
        refused("micronaut.server.idle-timeout", "400d", "at most 366d");
        refused("micronaut.netty.event-loops.default.prefer-native-transport", "maybe", "true or false");
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("micronaut.server.idle-timeout", "5m",
                "micronaut.netty.event-loops.default.prefer-native-transport", "FALSE"))));
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.http.forwarded-header",
                "Forwarded"))));
        assertTrue(SettingChecks.named("tollgate.completions.sweep-interval")
                .startsWith("TOLLGATE_COMPLETIONS_SWEEP_INTERVAL"));
    }

    @Test
    void countsThatWouldRefuseEverythingOrTripAtOnceAreRefusedNamingTheVariable() {
        refused("tollgate.limits.key.per-minute", "0", "a whole number of at least 1; it was 0");
        refused("tollgate.limits.account.burst", "many", "a whole number of at least 1");
        refused("tollgate.limits.behaviour.identical", "1", "from 2 to 2147483647");
        refused("tollgate.limits.cooldown.within", "0s", "positive");
        refused("tollgate.smtp.port", "70000", "from 1 to 65535");
        refused("tollgate.completions.hold-lease", "1m", "at least 2m");
        refused("tollgate.completions.max-retries", "-1", "from 0");
        // An operator audit: a port out of range failed deep in Netty with a stack trace, and a negative body size
        // started a server that answered every body with 413.
        refused("micronaut.server.port", "99999", "from -1 to 65535");
        refused("micronaut.server.port", "abc", "from -1 to 65535");
        refused("micronaut.server.max-request-size", "-1", "at least one byte");
        refused("micronaut.server.max-request-size", "0MB", "at least one byte");
        refused("micronaut.server.max-request-size", "lots", "at least one byte");
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("micronaut.server.port", "-1",
                "micronaut.server.max-request-size", "2mb"))));
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("micronaut.server.max-request-size",
                "1048576"))));
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.limits.tokens.key-per-minute",
                "50000000000", "tollgate.limits.behaviour.minimal-words", "0", "tollgate.completions.max-retries",
                "0"))));
    }

    @Test
    void aSliceAmountAndTheCatalogFileAreCheckedNamingTheVariable() throws java.io.IOException {
        refused("tollgate.billing.slice-usd", "-1", "positive amount of US dollars");
        refused("tollgate.billing.slice-usd", "0", "positive amount of US dollars");
        refused("tollgate.billing.slice-usd", "0.0000001", "at most 6 decimals");
        refused("tollgate.billing.slice-usd", "lots", "positive amount of US dollars");
        refused("tollgate.catalog", "/no/such/catalog.yml", "there is no file /no/such/catalog.yml");
        refused("tollgate.catalog", System.getProperty("java.io.tmpdir"), "cannot be read as one");
        java.nio.file.Path catalog = java.nio.file.Files.createTempFile("catalog", ".yml");
        try {
            assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.billing.slice-usd", "0.25",
                    "tollgate.catalog", catalog.toString()))));
            assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.catalog", ""))),
                    "an empty value is the shipped catalog");
        } finally {
            java.nio.file.Files.delete(catalog);
        }
    }

    /** A docs audit: these were refused by the components reading them, naming the property only. */
    @Test
    void settingsTheComponentsReadAreCheckedHereInTheSameSentence() {
        refused("tollgate.limits.enabled", "perhaps", "must be true or false; it was perhaps");
        refused("tollgate.limits.on-store-failure.requests", "sometimes", "must be local or closed; it was sometimes");
        refused("tollgate.limits.on-store-failure.cooldowns", "open", "must be local or closed");
        refused("tollgate.playground.cookie-secure", "maybe", "must be auto, true or false; it was maybe");
        refused("tollgate.dashboard.cookie-secure", "yes", "must be auto, true or false");
        refused("tollgate.smtp.tls", "ssl", "must be starttls, tls or none");
        refused("tollgate.http.max-connections", "0", "from 1 to 2147483647");
        refused("tollgate.http.ipv6-prefix-length", "129", "from 1 to 128");
        refused("tollgate.dashboard.public-url", "gateway.example.com", "must start with https:// or http://");
        // A second docs audit: these two failed in the playground's own words, naming no variable.
        refused("tollgate.playground.max-prompt-chars", "0", "a whole number of at least 1; it was 0");
        refused("tollgate.playground.models", "tollgate/simulator-free," + "m".repeat(257),
                "model ids of at most 256 characters, separated by commas; one has 257");
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.playground.models",
                "tollgate/simulator-free, " + "m".repeat(256), "tollgate.playground.max-prompt-chars", "100"))));
        IllegalArgumentException secret = assertThrows(IllegalArgumentException.class, () -> new SettingChecks(
                environment(Map.of("tollgate.dashboard.secret", "hunter2-hunter2"))));
        assertEquals("TOLLGATE_DASHBOARD_SECRET (tollgate.dashboard.secret) must have at least 32 characters; it "
                + "has 15", secret.getMessage(), "never the secret itself");
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.limits.enabled", "False",
                "tollgate.limits.on-store-failure.requests", "CLOSED", "tollgate.playground.cookie-secure", " True",
                "tollgate.dashboard.public-url", "https://gw.example.com/base", "tollgate.dashboard.secret",
                "x".repeat(32), "tollgate.smtp.tls", "none"))));
    }

    @Test
    void aFailedStartAsksTheChecksForTheSentenceThatNamesTheVariable() {
        System.setProperty("tollgate.limits.ip.per-minute", "0");
        try {
            assertEquals(Optional.of("TOLLGATE_LIMITS_IP_PER_MINUTE (tollgate.limits.ip.per-minute) must be a whole "
                    + "number of at least 1; it was 0"), SettingChecks.firstProblem(Map.of()));
        } finally {
            System.clearProperty("tollgate.limits.ip.per-minute");
        }
        assertEquals(Optional.empty(), SettingChecks.firstProblem(Map.of("tollgate.limits.ip.per-minute", "5")));
    }

    @Test
    void sensibleValuesAndUnsetOnesPass() {
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of())));
        assertDoesNotThrow(() -> new SettingChecks(environment(Map.of("tollgate.completions.sweep-interval", "250ms",
                "tollgate.shutdown.settle-wait", "0s", "tollgate.catalog-check-interval", "0s",
                "tollgate.playground.user-billed", "TRUE", "tollgate.completions.first-byte-timeout", "2h"))));
    }

    @Test
    void variablesWithSpacesAroundTheirValueAreNamedWithoutTheirValues() {
        assertEquals("", SettingChecks.spacedVariables(Map.of("MICRONAUT_SERVER_PORT", "8080", "HOME", " /root ")));
        assertEquals("; MICRONAUT_SERVER_PORT has spaces around the value: remove them",
                SettingChecks.spacedVariables(Map.of("MICRONAUT_SERVER_PORT", "8080 ", "PATH", "/bin ")));
        String two = SettingChecks.spacedVariables(Map.of("TOLLGATE_LIMITS_KEY_PER_MINUTE", " 600",
                "DATASOURCES_DEFAULT_PASSWORD", "secret\t"));
        assertEquals("; DATASOURCES_DEFAULT_PASSWORD, TOLLGATE_LIMITS_KEY_PER_MINUTE have spaces around the value: "
                + "remove them", two);
        assertTrue(!two.contains("secret"), "never a value");
    }
}
