package dev.tollgate.adapter.out.upstream.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.upstream.common.ConfiguredModelProviders;
import dev.tollgate.adapter.out.upstream.common.JtokkitTokenCounter;
import dev.tollgate.application.port.out.ModelCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileModelCatalogTest {

    @TempDir
    Path dir;

    private static String shipped() throws IOException {
        try (InputStream in = FileModelCatalog.class.getResourceAsStream(FileModelCatalog.SHIPPED)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void write(Path file, String content, Instant modified) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Files.setLastModifiedTime(file, FileTime.from(modified));
    }

    @Test
    void aBrokenFileIsUnavailableToEveryCallerUntilTheNextLookNotServedStale() throws Exception {
        Path file = dir.resolve("catalog.yml");
        write(file, shipped(), Instant.now().minusSeconds(60));
        FileModelCatalog catalog = new FileModelCatalog(file, Duration.ofMillis(300));
        int models = catalog.models().size();
        Thread.sleep(350);

        write(file, "models: [ {id: broken\n", Instant.now().minusSeconds(30));
        assertThrows(ModelCatalog.CatalogReadException.class, catalog::models, "the look that finds it broken");
        // Within the check interval the same answer, not the last good models (one route 503, another 200).
        assertThrows(ModelCatalog.CatalogReadException.class, catalog::models);
        assertThrows(ModelCatalog.CatalogReadException.class, catalog::models);

        write(file, shipped(), Instant.now().minusSeconds(10));
        assertThrows(ModelCatalog.CatalogReadException.class, catalog::models, "not looked at again yet");
        Thread.sleep(350);
        assertEquals(models, catalog.models().size(), "readable again at the next look");
    }

    @Test
    void aFileDeletedWhileServingSaysSo() throws Exception {
        Path file = dir.resolve("deleted.yml");
        write(file, shipped(), Instant.now().minusSeconds(60));
        FileModelCatalog catalog = new FileModelCatalog(file, Duration.ZERO);
        catalog.models();
        Files.delete(file);
        ModelCatalog.CatalogReadException gone = assertThrows(ModelCatalog.CatalogReadException.class,
                catalog::models);
        assertEquals("cannot read the catalog " + file + ": no such file", gone.getMessage(), "not the path twice");
    }

    @Test
    void aRouteThatTakesImagesNeedsTheModelsImageTokens() {
        String providers = "providers:\n  sim: {type: simulator}\n  claude: {type: anthropic, base-url: "
                + "'http://127.0.0.1:1', api-key-env: ANTHROPIC_API_KEY}\n";
        String model = "models:\n  - id: v/one\n    context-length: 1000\n    max-output-tokens: 100\n";
        String route = "    routes:\n      - provider: %s\n        input-usd-per-million: 1\n"
                + "        output-usd-per-million: 1\n        capabilities: {images: true}\n";
        var vision = CatalogFile.parse(providers + model + "    image-tokens: 85\n" + route.formatted("sim"))
                .models().get(0);
        assertEquals(85, vision.imageTokens());
        assertTrue(vision.capabilities().images());
        IllegalArgumentException unset = assertThrows(IllegalArgumentException.class,
                () -> CatalogFile.parse(providers + model + route.formatted("sim")));
        assertTrue(unset.getMessage().contains("image-tokens"), unset.getMessage());
        assertTrue(CatalogFile.parse(providers + model + "    image-tokens: 85\n" + route.formatted("claude"))
                .models().get(0).capabilities().images(), "the Anthropic translation sends image blocks");
        assertFalse(CatalogFile.parse(providers + model + route.formatted("sim").replace("images: true", "tools: true"))
                .models().get(0).capabilities().images(), "no images unless declared");
        IllegalArgumentException logprobs = assertThrows(IllegalArgumentException.class,
                () -> CatalogFile.parse(providers + model + route.formatted("claude").replace("images", "logprobs")));
        assertTrue(logprobs.getMessage().contains("no log probabilities"), logprobs.getMessage());
        // An audit: response_format is not translated to the Messages API, so a JSON request got free text.
        IllegalArgumentException format = assertThrows(IllegalArgumentException.class, () -> CatalogFile.parse(
                providers + model + route.formatted("claude").replace("images", "response-format")));
        assertTrue(format.getMessage().contains("is not sent response_format"), format.getMessage());
    }

    @Test
    void whatWouldBeReadOtherwiseThanWrittenIsRefusedNamingIt() {
        String providers = "providers:\n  sim: {type: simulator%s}\n";
        String model = "models:\n  - id: m/%s\n    context-length: 1000\n    max-output-tokens: 100\n"
                + "    routes:\n      - provider: sim\n        input-usd-per-million: %s\n"
                + "        output-usd-per-million: 1\n        capabilities: {%s}\n";
        String fine = providers.formatted("") + model.formatted("a", "\"0.15\"", "tools: true");
        assertTrue(CatalogFile.parse(fine).models().get(0).capabilities().tools());
        record Case(String yaml, String named) {
        }
        for (Case c : List.of(
                new Case(fine + model.formatted("a", "1", "seed: true").replace("models:\n", ""), "twice"),
                new Case(providers.formatted("") + model.formatted("a", "\"0.0000004\"", "tools: true"),
                        "more decimals than a micro-dollar"),
                new Case(providers.formatted("") + model.formatted("a", "\"2.1234567\"", "tools: true"),
                        "input-usd-per-million"),
                new Case(providers.formatted("") + model.formatted("a", "\"cheap\"", "tools: true"), "cheap"),
                new Case(providers.formatted("") + model.formatted("a", "1", "tool: true"), "unknown capability 'tool'"),
                new Case(providers.formatted("") + model.formatted("a", "1", "logprobs: \"yes\""), "true or false"),
                // A docs audit: the flag's message named neither the model nor the route.
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: ture"),
                        "model m/a route to 'sim' capabilities: tools must be true or false, got 'ture'"),
                new Case(providers.formatted(", report-usage: flase") + model.formatted("a", "1", "tools: true"),
                        "report-usage must be true or false"),
                new Case(providers.formatted(", api-key: sk-secret") + model.formatted("a", "1", "tools: true"),
                        "api-key-env"),
                // An operator audit: misspelt keys were left out silently (a model's cap, a route's prices).
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: true")
                        .replace("max-output-tokens: 100\n", "max-output-tokens: 100\n    colour: blue\n"),
                        "model m/a: unknown key 'colour'"),
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: true")
                        .replace("output-usd-per-million", "output-usd-per-milion"),
                        "model m/a route: unknown key 'output-usd-per-milion'"),
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: true") + "modles: []\n",
                        "the catalog: unknown key 'modles'"),
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: true")
                        .replace("context-length: 1000", "context-length: 99999999999999999999"),
                        "model m/a: context-length must be a whole number"),
                new Case(providers.formatted("") + model.formatted("a", "1", "tools: true")
                        .replace("context-length: 1000\n", "context-length: 1000\n    created: yesterday\n"),
                        "model m/a: created must be a whole number"),
                // A provider's settings are read by its type: one its type does not know was ignored silently.
                new Case(providers.formatted(", requests-per-minut: 10") + model.formatted("a", "1", "tools: true"),
                        "provider sim: unknown setting 'requests-per-minut' for type simulator (known: type, "),
                new Case(providers.formatted("") + "  oa: {type: openai, base-url: 'http://127.0.0.1:9/v1', "
                        + "conect-timeout-ms: 5}\n" + model.formatted("a", "1", "tools: true"),
                        "provider oa: unknown setting 'conect-timeout-ms' for type openai"),
                new Case(providers.formatted(", fail-mode: midstream") + model.formatted("a", "1", "tools: true"),
                        "fail-mode must be one of before-first-byte, mid-stream, got 'midstream'"),
                new Case(providers.formatted(", fail-status: 200") + model.formatted("a", "1", "tools: true"),
                        "fail-status must be an HTTP error status (400-599), got 200"))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> new SimulatorCheck(CatalogFile.parse(c.yaml())).run(), c.yaml());
            assertTrue(refused.getMessage().contains(c.named()), refused.getMessage());
            assertFalse(refused.getMessage().contains("sk-secret"), "a secret is never echoed");
        }
    }

    /** Builds the catalog's providers the way start-up does, so that their settings are read and checked too. */
    private record SimulatorCheck(CatalogFile file) {
        void run() {
            new ConfiguredModelProviders(file, new JtokkitTokenCounter(), null, null, null);
        }
    }

    /** Audits (2026-11-29): a key written twice took its last value (a price of 5 then 0: the model free). */
    @Test
    void aKeyWrittenTwiceIsRefusedNotTakenAtItsLastValue() throws IOException {
        Path file = dir.resolve("twice.yml");
        Files.writeString(file, shipped().replace("providers:", "providers:\n  twin: {type: simulator}")
                + "\nproviders:\n  other: {type: simulator}\n");
        ModelCatalog.CatalogReadException refused = assertThrows(ModelCatalog.CatalogReadException.class,
                () -> FileModelCatalog.load(file));
        assertTrue(refused.getMessage().contains("duplicate key providers"), refused.getMessage());
    }

    /** One line that says what, where and in which file — at start-up as on a reload. */
    @Test
    void aYamlSyntaxErrorIsOneLineNamingTheFileLineAndColumn() throws IOException {
        Path file = dir.resolve("syntax.yml");
        Files.writeString(file, "models:\n  - id: [broken\n");
        ModelCatalog.CatalogReadException refused = assertThrows(ModelCatalog.CatalogReadException.class,
                () -> FileModelCatalog.load(file));
        assertTrue(refused.getMessage().startsWith("cannot read the catalog " + file), refused.getMessage());
        assertTrue(refused.getMessage().matches(".* at line \\d+, column \\d+"), refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
        assertNull(refused.getCause(), "its own line is the one an operator sees");

        ModelCatalog.CatalogReadException missing = assertThrows(ModelCatalog.CatalogReadException.class,
                () -> FileModelCatalog.load(dir.resolve("gone.yml")));
        assertTrue(missing.getMessage().endsWith("gone.yml: no such file"), missing.getMessage());
    }

    /**
     * A re-read file whose providers the next start-up would refuse is refused now (503), not found at a restart
     * (an audit, 2026-11-29: a fail-status of 200 passed a reload and stopped the next start).
     */
    @Test
    void aReloadChecksTheProvidersAsTheStartUpDoes() throws Exception {
        Path file = dir.resolve("catalog.yml");
        write(file, shipped(), Instant.now().minusSeconds(60));
        FileModelCatalog catalog = new FileModelCatalog(file, Duration.ofMillis(100), loaded -> {
            loaded.providers().values().forEach(p -> {
                if (p.settings().containsKey("fail-status")) {
                    throw new IllegalArgumentException("provider " + p.name() + ": fail-status must be 400-599");
                }
            });
        });
        int models = catalog.models().size();
        Thread.sleep(150);
        write(file, shipped().replace("type: simulator", "type: simulator\n    fail-status: 200"),
                Instant.now().minusSeconds(30));
        ModelCatalog.CatalogReadException refused = assertThrows(ModelCatalog.CatalogReadException.class,
                catalog::models);
        assertTrue(refused.getMessage().contains("fail-status must be 400-599"), refused.getMessage());
        write(file, shipped(), Instant.now().minusSeconds(10));
        Thread.sleep(150);
        assertEquals(models, catalog.models().size());
    }

    @Test
    void aFileThatIsNotUtf8TextIsRefusedSayingSo() throws IOException {
        Path file = dir.resolve("latin1.yml");
        Files.write(file, "providers:\n  sim: {type: simulator}\n# caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));

        ModelCatalog.CatalogReadException refused = assertThrows(ModelCatalog.CatalogReadException.class,
                () -> FileModelCatalog.load(file));
        assertTrue(refused.getMessage().endsWith("latin1.yml: the file is not UTF-8 text"), refused.getMessage());
    }

    @Test
    void theShippedCatalogLoadsAndIsNeverLookedUpAgain() {
        FileModelCatalog catalog = new FileModelCatalog(null, Duration.ZERO);
        assertFalse(catalog.models().isEmpty());
        assertEquals(catalog.models(), catalog.models());
    }
}
