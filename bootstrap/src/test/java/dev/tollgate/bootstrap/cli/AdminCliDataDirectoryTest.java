package dev.tollgate.bootstrap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.bootstrap.TollgateApplication;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator CLI on the embedded default in a directory where no gateway ever ran (the wrong working directory,
 * a mistyped {@code TOLLGATE_DATA_DIR}): refused, and nothing is set up there — it would otherwise start a new,
 * empty PostgreSQL and report success for an account the gateway never sees.
 */
class AdminCliDataDirectoryTest {

    @TempDir
    Path dir;

    @BeforeEach
    void noExternalDatabase() {
        assertNull(System.getenv("DATASOURCES_DEFAULT_URL"), "this test needs the embedded default");
        assertNull(System.getProperty("datasources.default.url"));
    }

    @AfterEach
    void clear() {
        System.clearProperty("tollgate.data-dir");
    }

    @Test
    void aCommandWhereTheGatewayHasNoDataIsRefusedAndCreatesNothing() {
        Path dataDir = dir.resolve("tollgate-data");
        System.setProperty("tollgate.data-dir", dataDir.toString());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = new CommandLine(new TollgateApplication()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("admin", "account", "create", "--email", "someone@example.test", "--credit", "5");

        assertEquals(1, exit, err.toString());
        assertEquals("", out.toString());
        String message = err.toString();
        assertTrue(message.startsWith("error: no Tollgate data in " + dataDir.toAbsolutePath()), message);
        assertTrue(message.contains("TOLLGATE_DATA_DIR") && message.contains("start the gateway once first"), message);
        assertEquals(1, message.strip().lines().count(), message);
        assertFalse(Files.exists(dataDir), "the data directory was created");
    }
}
