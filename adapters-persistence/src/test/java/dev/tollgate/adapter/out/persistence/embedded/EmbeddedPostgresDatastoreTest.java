package dev.tollgate.adapter.out.persistence.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded default: a real PostgreSQL whose data survives restarts, shared by a second process's attach. */
class EmbeddedPostgresDatastoreTest {

    @TempDir
    Path dataDir;

    private static Connection connect(EmbeddedPostgresDatastore datastore) throws Exception {
        return DriverManager.getConnection(datastore.jdbcUrl(), datastore.username(), datastore.password());
    }

    @Test
    void onlyTheOwnerOfThePasswordFileMayConnect() throws Exception {
        try (EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dataDir, false)) {
            Path file = dataDir.resolve(EmbeddedPostgresDatastore.PASSWORD_FILE);
            assertEquals(datastore.password(), Files.readString(file).strip());
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(file)));
            for (String wrong : new String[] {"", "postgres", datastore.password() + "x"}) {
                java.sql.SQLException refused = assertThrows(
                        java.sql.SQLException.class, () -> DriverManager.getConnection(datastore.jdbcUrl(),
                                datastore.username(), wrong).close(), "password '" + wrong + "'");
                // 28P01 invalid_password; 08004 the driver itself refusing to send an empty one
                assertTrue(java.util.Set.of("28P01", "08004").contains(refused.getSQLState()), refused.getMessage());
            }
            try (Connection c = connect(datastore); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> "
                            + "'scram-sha-256'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "no trust or peer rule is left, TCP or Unix socket");
            }
        }
        // Started again on the same directory: the same password, the server still closed to others.
        try (EmbeddedPostgresDatastore again = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
                Connection c = connect(again)) {
            assertTrue(c.isValid(2));
            assertThrows(java.sql.SQLException.class,
                    () -> DriverManager.getConnection(again.jdbcUrl(), again.username(), "").close());
        }
    }

    @Test
    void dataSurvivesARestartAndASecondUserAttachesToTheRunningServer() throws Exception {
        try (EmbeddedPostgresDatastore first = EmbeddedPostgresDatastore.attachOrStart(dataDir, false)) {
            assertTrue(first.startedHere());
            assertEquals(dataDir.toAbsolutePath().resolve("postgres"), first.dataDirectory());
            try (Connection c = connect(first); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE survivor (v text)");
                s.execute("INSERT INTO survivor VALUES ('kept')");
            }
            // A second user of the same directory (the CLI while the gateway runs) attaches instead of starting.
            try (EmbeddedPostgresDatastore second = EmbeddedPostgresDatastore.attachOrStart(dataDir, false)) {
                assertFalse(second.startedHere());
                assertEquals(first.port(), second.port());
            }
            // Closing an attached handle leaves the server running.
            try (Connection c = connect(first)) {
                assertTrue(c.isValid(2));
            }
        }
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "the server stopped on close");

        try (EmbeddedPostgresDatastore restarted = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
                Connection c = connect(restarted);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM survivor")) {
            assertTrue(restarted.startedHere());
            assertTrue(rs.next());
            assertEquals("kept", rs.getString(1));
        }
    }

    @Test
    void autovacuumVisitsEverySecondSoTheHoldQueueDoesNotBloat() throws Exception {
        try (EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
                Connection c = connect(datastore);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT setting, unit FROM pg_settings "
                        + "WHERE name = 'autovacuum_naptime'")) {
            assertTrue(rs.next());
            assertEquals("1", rs.getString(1));
            assertEquals("s", rs.getString(2));
        }
    }

    @Test
    void aStalePidFileDoesNotCountAsARunningServer() throws Exception {
        Path pgData = dataDir.resolve("postgres");
        Files.createDirectories(pgData);
        Files.writeString(pgData.resolve("postmaster.pid"), "999999999\n" + pgData + "\n0\n5\n\n");
        assertTrue(EmbeddedPostgresDatastore.runningServerPort(pgData, "any").isEmpty());
    }

    @Test
    void aStalePidFileNamingALiveProcessAndAnotherDirectorysServerIsNotAttachedTo(@TempDir Path other)
            throws Exception {
        try (EmbeddedPostgresDatastore elsewhere = EmbeddedPostgresDatastore.attachOrStart(other, false)) {
            Path pgData = dataDir.resolve("postgres");
            Files.createDirectories(pgData);
            // A pid reused by a live process (this one), and the port of a PostgreSQL serving another directory.
            Files.writeString(pgData.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n" + pgData
                    + "\n0\n" + elsewhere.port() + "\n\n");
            // Even with that server's password (a copied data directory), its data is not taken for ours.
            assertTrue(EmbeddedPostgresDatastore.runningServerPort(pgData, elsewhere.password()).isEmpty(),
                    "its data would be taken for ours");
            assertEquals(elsewhere.port(), EmbeddedPostgresDatastore.runningServerPort(elsewhere.dataDirectory(),
                    elsewhere.password()).orElseThrow(), "the server's own directory still finds it");
        }
    }

    @Test
    void aServerKilledUnderTheGatewayIsStartedAgainOnTheSamePortAndData() throws Exception {
        try (EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dataDir, false)) {
            try (Connection c = connect(datastore); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE survivor (v text)");
                s.execute("INSERT INTO survivor VALUES ('kept')");
                s.execute("CHECKPOINT"); // tests run it without synchronous commit: make the row outlive a crash
            }
            killAndAwaitRestart(datastore);
            assertTrue(datastore.startedHere(), "and this process stops it on close");
        }
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "stopped on close, not restarted");
    }

    /**
     * On a loaded machine a restart can outlast its wait for the server: the server that try started comes up
     * afterwards. It is this process's all the same (stopped on close: it was left running with no gateway), and
     * the next restart is not refused by the lock the given-up try kept.
     */
    @Test
    void aRestartThatOutlastsItsWaitStillStartsTheServerThisProcessOwns() throws Exception {
        try (EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dataDir, false,
                Duration.ofMillis(1))) {
            try (Connection c = connect(datastore); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE survivor (v text)");
                s.execute("INSERT INTO survivor VALUES ('kept')");
                s.execute("CHECKPOINT");
            }
            killAndAwaitRestart(datastore);
            assertTrue(datastore.startedHere(), "the late server is this process's");
            killAndAwaitRestart(datastore);
            assertTrue(datastore.startedHere(), "and so is the next one");
        }
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "stopped on close, not left running");
    }

    /**
     * Kills the server with SIGKILL and waits until it serves the table {@code survivor} again, as a new process, and
     * for the datastore to take it as its own (which the callers then check).
     */
    private void killAndAwaitRestart(EmbeddedPostgresDatastore datastore) throws Exception {
        long pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postgres/postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        postmaster.destroyForcibly(); // kill -9
        postmaster.onExit().get();
        String kept = null;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (kept == null && System.nanoTime() < deadline) {
            try (Connection c = connect(datastore);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM survivor")) {
                rs.next();
                kept = rs.getString(1);
            } catch (java.sql.SQLException e) {
                Thread.sleep(200); // not back yet
            }
        }
        assertEquals("kept", kept, "back on the same port (the pool's URL) with its data");
        long newPid = Long.parseLong(Files.readAllLines(dataDir.resolve("postgres/postmaster.pid")).get(0).trim());
        assertTrue(newPid != pid, "a new server process");
        // The watchdog learns who started it at its next look, a second at most after the server answers.
        for (long until = System.nanoTime() + 5_000_000_000L; !datastore.startedHere() && System.nanoTime() < until; ) {
            Thread.sleep(100);
        }
    }

    @Test
    void itsOwnConnectionsAreItsOwnEvenAfterResetAllSoTheServerStopsWithIt() throws Exception {
        EmbeddedPostgresDatastore datastore = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
        Connection own = connect(datastore); // as a dedicated billing connection: borrowed, reset, still open
        try (Statement s = own.createStatement()) {
            s.execute("SET statement_timeout = 1000");
            s.execute("RESET ALL");
        }
        datastore.close();
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")),
                "not taken for another process's connection, which would leave the server running");
        own.close();
    }

    @Test
    void aServerStartedByAShortCommandKeepsRunningForAProcessThatAttachedBeforeItsPoolOpened() throws Exception {
        EmbeddedPostgresDatastore command = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
        assertTrue(command.startedHere());
        Process gateway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), AttachAndWait.class.getName(), dataDir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String said = new BufferedReader(new InputStreamReader(gateway.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertEquals("attached", said);

            command.close(); // the CLI command ends: the gateway that attached a moment ago must not lose its server

            assertTrue(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "left running for the attached one");
            try (Connection c = DriverManager.getConnection(command.jdbcUrl(), command.username(), command.password())) {
                assertTrue(c.isValid(2));
            }
        } finally {
            gateway.getOutputStream().close();
            assertTrue(gateway.waitFor(60, TimeUnit.SECONDS));
        }
        // The gateway was the last to use it: it stopped the server it did not start, which nobody else would.
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "stopped by its last user");
    }

    @Test
    void twoOverlappingCommandsLeaveNoServerBehind() throws Exception {
        EmbeddedPostgresDatastore first = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
        EmbeddedPostgresDatastore second = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
        assertTrue(first.startedHere());
        assertFalse(second.startedHere());

        first.close(); // the one that started it ends first: the other still uses it
        try (Connection c = connect(second)) {
            assertTrue(c.isValid(2), "left running for the second command");
        }

        second.close(); // the last user ends: nobody would ever stop it otherwise
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "stopped by its last user");
        assertThrows(java.sql.SQLException.class, () -> connect(second).close(), "nothing answers on its port");
    }

    @Test
    void aProcessThatAttachedLeavesTheServerRunningWhileItsStarterStillUsesItWithoutAnyConnection()
            throws Exception {
        try (EmbeddedPostgresDatastore starter = EmbeddedPostgresDatastore.attachOrStart(dataDir, false)) {
            assertTrue(starter.startedHere());
            // The starter's pool holds no connection now; its presence connection still says it is there.
            EmbeddedPostgresDatastore attached = EmbeddedPostgresDatastore.attachOrStart(dataDir, false);
            assertFalse(attached.startedHere());
            attached.close();
            try (Connection c = connect(starter)) {
                assertTrue(c.isValid(2), "the starter keeps its server");
            }
        }
        assertFalse(Files.exists(dataDir.resolve("postgres/postmaster.pid")), "the starter stopped it");
    }
}
