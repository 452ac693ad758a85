package dev.tollgate.adapter.out.upstream.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.application.port.out.ModelCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
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
    void theShippedCatalogLoadsAndIsNeverLookedUpAgain() {
        FileModelCatalog catalog = new FileModelCatalog(null, Duration.ZERO);
        assertFalse(catalog.models().isEmpty());
        assertEquals(catalog.models(), catalog.models());
    }
}
