package dev.tollgate.bootstrap;

import dev.tollgate.adapter.in.http.common.SourceAddresses;
import dev.tollgate.domain.catalog.ModelId;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.env.Environment;
import io.micronaut.core.type.Argument;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Start-up checks of the settings whose wrong values the framework would take: a duration of zero or less where
 * only a positive one works (a sweep that never runs, a head timeout that cuts every request), one so long that
 * timers overflow ({@code 200000d} fails every completion with an arithmetic error), a boolean typo read as
 * {@code false}. Each refuses the start-up with the environment variable's name, as docs/operations.md promises,
 * instead of a server that half-starts or answers 500.
 */
@Context
final class SettingChecks {

    /** Longer than any timer of the gateway needs; far below where nanosecond arithmetic overflows (292 years). */
    private static final Duration LONGEST = Duration.ofDays(366);

    /** Counts and their least sensible value; a limit of 0 would refuse everything, a threshold of 1 trip at once. */
    private static final Map<String, Range> COUNTS = counts();

    private record Range(long least, long most) {
    }

    SettingChecks(Environment environment) {
        for (String property : List.of("tollgate.completions.first-byte-timeout", "tollgate.completions.idle-timeout",
                "tollgate.completions.sweep-interval", "tollgate.http.request-head-timeout",
                "tollgate.http.request-body-timeout", "tollgate.upstream.pool-idle-timeout",
                "tollgate.dashboard.verification-lifetime", "tollgate.dashboard.session.idle",
                "tollgate.dashboard.session.absolute", "tollgate.dashboard.login.window",
                "tollgate.dashboard.mail.window", "tollgate.sse.keep-alive",
                "tollgate.sse.client-stall-timeout", "tollgate.billing.instance-lease",
                "tollgate.billing.slice-idle-return", "tollgate.billing.statement-timeout",
                "tollgate.limits.burst-window", "tollgate.limits.distinct.window", "tollgate.limits.cooldown.within",
                "tollgate.limits.cooldown.duration", "tollgate.limits.behaviour.within",
                "tollgate.limits.behaviour.duration", "tollgate.limits.failover.alone-lease",
                "tollgate.limits.failover.retry", "tollgate.redis.command-timeout", "tollgate.redis.slot-lease",
                "tollgate.smtp.timeout", "tollgate.datasource.lookup-timeout", "tollgate.admission-timeout",
                "micronaut.server.idle-timeout")) {
            positive(environment, property);
        }
        for (String property : List.of("tollgate.catalog-check-interval", "tollgate.shutdown.settle-wait",
                "micronaut.lifecycle.graceful-shutdown.grace-period", "tollgate.billing.settlement-linger",
                "tollgate.auth.key-cache-ttl", "tollgate.billing.refusal-wait")) {
            notNegative(environment, property);
        }
        // A hold waits on purpose (for money on its way) at most the refusal wait, within the admission deadline:
        // otherwise a request its money cannot cover would be answered 503 at the deadline instead of 429.
        Duration admission = duration(environment, "tollgate.admission-timeout").orElse(Duration.ofMillis(900));
        Duration refusalWait = duration(environment, "tollgate.billing.refusal-wait").orElse(Duration.ofMillis(500));
        if (refusalWait.compareTo(admission) >= 0) {
            throw new IllegalArgumentException(named("tollgate.billing.refusal-wait") + " must be shorter than "
                    + named("tollgate.admission-timeout") + "; they were " + refusalWait.toMillis() + " ms and "
                    + admission.toMillis() + " ms");
        }
        duration(environment, "tollgate.completions.hold-lease").ifPresent(lease -> {
            // Requests are stopped a minute before their hold's lease ends: a shorter lease leaves them no time.
            if (lease.compareTo(Duration.ofMinutes(2)) < 0) {
                throw new IllegalArgumentException(named("tollgate.completions.hold-lease") + " must be at least 2m; "
                        + "it was " + text(environment, "tollgate.completions.hold-lease"));
            }
        });
        COUNTS.forEach((property, least) -> count(environment, property, least));
        bool(environment, "tollgate.playground.user-billed");
        usd(environment, "tollgate.billing.slice-usd");
        bytes(environment, "micronaut.server.max-request-size");
        readableFile(environment, "tollgate.catalog");
        oneOf(environment, "tollgate.http.forwarded-header", List.of("x-forwarded-for", "forwarded"));
        // Settings the components read themselves, checked here too so that a wrong one is told in the same
        // sentence (the variable, what it may be, what it was) rather than in the component's words.
        bool(environment, "tollgate.limits.enabled");
        bool(environment, "micronaut.netty.event-loops.default.prefer-native-transport");
        for (String check : List.of("requests", "concurrency", "distinct", "tokens", "cooldowns")) {
            oneOf(environment, "tollgate.limits.on-store-failure." + check, List.of("local", "closed"));
        }
        oneOf(environment, "tollgate.playground.cookie-secure", List.of("auto", "true", "false"));
        oneOf(environment, "tollgate.dashboard.cookie-secure", List.of("auto", "true", "false"));
        oneOf(environment, "tollgate.smtp.tls", List.of("starttls", "tls", "none"));
        secretLength(environment, "tollgate.dashboard.secret", 32);
        webAddress(environment, "tollgate.dashboard.public-url");
        modelIds(environment, "tollgate.playground.models");
        // Its own sentence names the variable and the entry that is no address or CIDR block.
        new SourceAddresses(environment.getProperty("tollgate.http.trusted-proxies", Argument.listOf(String.class))
                .orElse(List.of()), 64);
    }

    private static Map<String, Range> counts() {
        long big = Long.MAX_VALUE / 2;
        long integer = Integer.MAX_VALUE;
        Map<String, Range> counts = new LinkedHashMap<>();
        for (String subject : List.of("key", "key-ip", "account", "ip")) {
            counts.put("tollgate.limits." + subject + ".per-minute", new Range(1, big));
            counts.put("tollgate.limits." + subject + ".burst", new Range(1, big));
        }
        for (String name : List.of("key.concurrency", "account.concurrency", "distinct.ips-per-key",
                "distinct.keys-per-ip", "tokens.key-per-minute", "tokens.account-per-minute", "cooldown.blocks",
                "playground.per-minute", "playground.per-hour", "playground.concurrency", "playground.all-per-minute",
                "playground.all-tokens-per-minute", "playground.all-concurrency", "playground.user-concurrency")) {
            counts.put("tollgate.limits." + name, new Range(1, name.equals("cooldown.blocks") ? integer : big));
        }
        counts.put("tollgate.limits.behaviour.identical", new Range(2, integer));
        counts.put("tollgate.limits.behaviour.minimal", new Range(2, integer));
        counts.put("tollgate.limits.behaviour.minimal-words", new Range(0, integer));
        counts.put("tollgate.limits.failover.instances", new Range(0, integer));
        counts.put("tollgate.completions.max-retries", new Range(0, integer));
        counts.put("tollgate.auth.key-cache-size", new Range(0, integer));
        counts.put("datasources.default.maximum-pool-size", new Range(1, integer));
        counts.put("tollgate.playground.max-output-tokens", new Range(1, integer));
        counts.put("tollgate.playground.max-prompt-chars", new Range(1, big));
        counts.put("tollgate.dashboard.login.per-email", new Range(1, integer));
        counts.put("tollgate.dashboard.login.per-ip", new Range(1, integer));
        counts.put("tollgate.dashboard.mail.per-recipient", new Range(1, integer));
        counts.put("tollgate.dashboard.mail.per-ip", new Range(1, integer));
        counts.put("tollgate.dashboard.outbox.size", new Range(1, integer));
        counts.put("tollgate.dashboard.password.iterations", new Range(1, integer));
        counts.put("tollgate.dashboard.password.parallelism", new Range(1, integer));
        counts.put("tollgate.dashboard.password.memory-kib", new Range(8, integer));
        counts.put("tollgate.smtp.port", new Range(1, 65535));
        counts.put("tollgate.http.max-connections", new Range(1, integer));
        counts.put("tollgate.http.ipv6-prefix-length", new Range(1, 128));
        counts.put("micronaut.server.port", new Range(-1, 65535)); // -1 or 0: a free port the system picks
        return counts;
    }

    private static void count(Environment environment, String property, Range range) {
        String text = text(environment, property);
        if (text == null) {
            return;
        }
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            value = Long.MIN_VALUE;
        }
        if (value < range.least() || value > range.most()) {
            String bounds = range.most() == Long.MAX_VALUE / 2 ? " of at least " + range.least()
                    : " from " + range.least() + " to " + range.most();
            throw new IllegalArgumentException(named(property) + " must be a whole number" + bounds + "; it was "
                    + text);
        }
    }

    /**
     * The first wrong setting, checked against the settings as the gateway reads them: a component that reads a
     * setting may be made before these checks run and fail with a sentence that names no variable, so a failed
     * start-up asks here for the sentence that does.
     */
    /** The prefixes of the environment variables that configure the gateway (docs/operations.md). */
    private static final List<String> OWN_VARIABLES = List.of("TOLLGATE_", "MICRONAUT_", "DATASOURCES_",
            "ENDPOINTS_", "REDIS_");

    /**
     * A hint for a start-up failure the framework reported without naming a variable: the gateway's variables whose
     * value has spaces around it ({@code MICRONAUT_SERVER_PORT="8080 "} fails deep inside Micronaut with "Failed to
     * inject value for parameter [port]"), named without their values (some are secrets); empty when there is none.
     */
    static String spacedVariables(Map<String, String> env) {
        List<String> spaced = env.entrySet().stream()
                .filter(e -> OWN_VARIABLES.stream().anyMatch(e.getKey()::startsWith))
                .filter(e -> !e.getValue().equals(e.getValue().strip()))
                .map(Map.Entry::getKey).sorted().toList();
        return spaced.isEmpty() ? "" : "; " + String.join(", ", spaced) + (spaced.size() == 1 ? " has" : " have")
                + " spaces around the value: remove them";
    }

    static Optional<String> firstProblem(Map<String, Object> properties) {
        try (ApplicationContext context = ApplicationContext.builder().properties(properties).build()) {
            Environment environment = context.getEnvironment();
            environment.start();
            new SettingChecks(environment);
            return Optional.empty();
        } catch (IllegalArgumentException wrong) {
            return Optional.of(wrong.getMessage());
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    private static void positive(Environment environment, String property) {
        duration(environment, property).ifPresent(value -> {
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(named(property) + " must be a positive duration, e.g. 30s or 5m; "
                        + "it was " + text(environment, property));
            }
        });
    }

    private static void notNegative(Environment environment, String property) {
        duration(environment, property).ifPresent(value -> {
            if (value.isNegative()) {
                throw new IllegalArgumentException(named(property) + " must not be negative, e.g. 0s or 5s; it was "
                        + text(environment, property));
            }
        });
    }

    private static Optional<Duration> duration(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null) {
            return Optional.empty();
        }
        // A unit is required: a bare number would be read as milliseconds by some readers and refused by others.
        Optional<Duration> value = text.strip().matches("-?[0-9]+") ? Optional.empty()
                : environment.getProperty(property, Duration.class);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(named(property) + " must be a duration with a unit, e.g. 30s, 5m or "
                    + "2h; it was " + text);
        }
        if (value.get().compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(named(property) + " must be at most 366d; it was " + text);
        }
        return value;
    }

    /** A comma-separated list of model ids as clients send them: each at most ModelId.MAX_LENGTH characters. */
    private static void modelIds(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null) {
            return;
        }
        for (String id : text.split(",")) {
            if (id.strip().length() > ModelId.MAX_LENGTH) {
                throw new IllegalArgumentException(named(property) + " must list model ids of at most "
                        + ModelId.MAX_LENGTH + " characters, separated by commas; one has " + id.strip().length());
            }
        }
    }

    /** A positive USD amount in whole micro-dollars, written as a plain decimal, read exactly (BigDecimal). */
    private static void usd(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null) {
            return;
        }
        boolean fine;
        try {
            BigDecimal amount = new BigDecimal(text.strip());
            fine = amount.signum() > 0 && amount.stripTrailingZeros().scale() <= 6
                    && amount.compareTo(BigDecimal.valueOf(1_000_000_000L)) <= 0;
        } catch (NumberFormatException e) {
            fine = false;
        }
        if (!fine) {
            throw new IllegalArgumentException(named(property) + " must be a positive amount of US dollars with at "
                    + "most 6 decimals, e.g. 1 or 0.25; it was " + text);
        }
    }

    /** Micronaut's readable byte sizes: a whole number, optionally with KB, MB or GB. */
    private static final java.util.regex.Pattern BYTES = java.util.regex.Pattern.compile("(\\d{1,12})([KMG]B)?",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /** A size in bytes of at least one byte (0 or a negative size refused every request body with a 413). */
    private static void bytes(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null) {
            return;
        }
        java.util.regex.Matcher size = BYTES.matcher(text.strip());
        if (!size.matches() || Long.parseLong(size.group(1)) < 1) {
            throw new IllegalArgumentException(named(property) + " must be a size of at least one byte, a whole number "
                    + "optionally followed by KB, MB or GB, e.g. 1MB; it was " + text);
        }
    }

    /** A file the gateway reads at start-up: it must be there and readable (an empty value means none is set). */
    private static void readableFile(Environment environment, String property) {
        String text = text(environment, property);
        if (text == null || text.isBlank()) {
            return;
        }
        Path file = Path.of(text.strip());
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(named(property) + " must name a readable file; "
                    + (Files.exists(file) ? "it cannot be read as one: " : "there is no file ") + text);
        }
    }

    private static void bool(Environment environment, String property) {
        String text = text(environment, property);
        if (text != null && !text.strip().equalsIgnoreCase("true") && !text.strip().equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(named(property) + " must be true or false; it was " + text);
        }
    }

    private static void oneOf(Environment environment, String property, List<String> choices) {
        String text = text(environment, property);
        if (text != null && !choices.contains(text.strip().toLowerCase(Locale.ROOT))) {
            String last = choices.get(choices.size() - 1);
            String listed = choices.size() == 1 ? last
                    : String.join(", ", choices.subList(0, choices.size() - 1)) + " or " + last;
            throw new IllegalArgumentException(named(property) + " must be " + listed + "; it was " + text);
        }
    }

    /** A secret, when set, of at least {@code least} characters; the message never shows it. */
    private static void secretLength(Environment environment, String property, int least) {
        String text = text(environment, property);
        if (text != null && !text.isBlank() && text.length() < least) {
            throw new IllegalArgumentException(named(property) + " must have at least " + least + " characters; it "
                    + "has " + text.length());
        }
    }

    /** An address of the gateway's web pages, when set: http:// or https:// and a host. */
    private static void webAddress(Environment environment, String property) {
        String text = text(environment, property);
        String address = text == null ? "" : text.strip();
        if (!address.isEmpty() && !address.matches("https?://[^/\\s]+(/\\S*)?")) {
            throw new IllegalArgumentException(named(property) + " must start with https:// or http:// and a host, "
                    + "e.g. https://gateway.example.com; it was " + text);
        }
    }

    private static String text(Environment environment, String property) {
        return environment.getProperty(property, String.class).orElse(null);
    }

    /** The environment variable and the property, as docs/operations.md lists them. */
    static String named(String property) {
        return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_') + " (" + property + ")";
    }
}
