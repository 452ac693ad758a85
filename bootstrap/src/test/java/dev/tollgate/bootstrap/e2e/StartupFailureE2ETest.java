package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.bootstrap.TollgateApplication;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway that cannot start (here: a setting out of range) says why and exits with 1 — and stops the embedded
 * PostgreSQL it started for the attempt. Micronaut's own start-up handler used to end the JVM on the spot, before
 * the gateway could stop that server, which then kept running with nobody to stop it.
 */
class StartupFailureE2ETest {

    /** The gateway as its own process on the embedded default in {@code dir}, any free port, its output in log. */
    private static ProcessBuilder gateway(Path dir, Path log) {
        ProcessBuilder gateway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), TollgateApplication.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        gateway.environment().remove("DATASOURCES_DEFAULT_URL");
        gateway.environment().remove("REDIS_URI");
        gateway.environment().put("TOLLGATE_DATA_DIR", dir.resolve("data").toString());
        gateway.environment().put("MICRONAUT_SERVER_PORT", "-1");
        return gateway;
    }

    @Test
    void aStartThatFailsSaysWhyAndStopsTheEmbeddedPostgresItStarted(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gateway.log");
        ProcessBuilder gateway = gateway(dir, log);
        gateway.environment().put("TOLLGATE_SSE_KEEP_ALIVE", "0s");

        Process process = gateway.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the failed start ends the process");
        String output = Files.readString(log);

        assertEquals(1, process.exitValue(), output);
        String failed = output.lines().filter(l -> l.contains("Tollgate failed to start")).findFirst().orElse("");
        assertTrue(failed.contains("TOLLGATE_SSE_KEEP_ALIVE (tollgate.sse.keep-alive) must be a positive duration"),
                "the one line names the setting at fault: " + output);
        assertFalse(output.contains("\tat io.micronaut"), "no stack trace for an operator's mistake: " + output);
        assertTrue(output.contains("started by this process"), "the attempt started its own PostgreSQL: " + output);
        // PostgreSQL removes its lock file when it stops; a server still running keeps it.
        assertFalse(Files.exists(dir.resolve("data").resolve("postgres").resolve("postmaster.pid")),
                "the embedded PostgreSQL was left running:\n" + output);
    }

    @Test
    void aStopSignalWhileTheGatewayStartsStopsTheEmbeddedPostgresToo(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gateway.log");
        ProcessBuilder gateway = gateway(dir, log);
        Path lock = dir.resolve("data").resolve("postgres").resolve("postmaster.pid");

        Process process = gateway.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        // The database is up and the gateway is still starting (Micronaut takes seconds after it): stop it now.
        while (!Files.readString(log).contains("started by this process") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(lock), "the embedded PostgreSQL runs: " + Files.readString(log));
        assertFalse(Files.readString(log).contains("Startup completed"), "the stop must come during the start");
        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the stop signal ends the process");

        assertFalse(Files.exists(lock), "the embedded PostgreSQL was left running:\n" + Files.readString(log));
    }

    /**
     * A stop signal while the embedded PostgreSQL itself is starting (its lock file there, the datastore not open
     * yet): the process could not register its datastore's shutdown hook any more, failed to open the datastore and
     * left the server it had just started running (an audit, 6 of 6 runs with a signal 1–1.5 s after launch).
     */
    @Test
    void aStopSignalWhileThePostgresStartsStopsItToo(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gateway.log");
        Path lock = dir.resolve("data").resolve("postgres").resolve("postmaster.pid");

        Process process = gateway(dir, log).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(lock) && process.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(Files.exists(lock), "the embedded PostgreSQL started: " + Files.readString(log));
        process.destroy(); // SIGTERM
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the stop signal ends the process");

        for (int i = 0; i < 100 && Files.exists(lock); i++) {
            Thread.sleep(50); // PostgreSQL removes its lock file as it finishes stopping
        }
        assertFalse(Files.exists(lock), "the embedded PostgreSQL was left running:\n" + Files.readString(log));
    }
}
