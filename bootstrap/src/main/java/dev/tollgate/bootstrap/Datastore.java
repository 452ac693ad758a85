package dev.tollgate.bootstrap;

import dev.tollgate.adapter.out.persistence.embedded.EmbeddedPostgresDatastore;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Chooses the datastore before the application context starts: the PostgreSQL named by
 * {@code DATASOURCES_DEFAULT_URL} (or the {@code datasources.default.url} system property), else the embedded
 * default in {@code TOLLGATE_DATA_DIR} (default {@code ./tollgate-data}).
 */
public final class Datastore implements AutoCloseable {

    static final String DEFAULT_DATA_DIR = "tollgate-data";

    private final Map<String, Object> properties;
    private final String description;
    private final EmbeddedPostgresDatastore embedded;
    private boolean closed;

    private Datastore(Map<String, Object> properties, String description, EmbeddedPostgresDatastore embedded) {
        this.properties = properties;
        this.description = description;
        this.embedded = embedded;
    }

    /** For the gateway: the embedded default is set up in its data directory if it is not there yet. */
    public static Datastore select(Map<String, String> env) throws IOException {
        return select(env, true);
    }

    /**
     * For an operator command, which works on an installation that exists: the embedded default only where its data
     * already is. A command run in the wrong directory would otherwise set up a new, empty database there and
     * report success for an account or key the gateway never sees.
     *
     * @throws NoDataDirectoryException when the embedded default has no data in the directory
     */
    public static Datastore selectExisting(Map<String, String> env) throws IOException {
        return select(env, false);
    }

    private static Datastore select(Map<String, String> env, boolean setUp) throws IOException {
        String url = firstNonBlank(System.getProperty("datasources.default.url"), env.get("DATASOURCES_DEFAULT_URL"));
        if (url != null) {
            check(url.strip());
            return new Datastore(Map.of(), "external PostgreSQL at " + redact(url), null);
        }
        Path dataDir = Path.of(firstNonBlank(System.getProperty("tollgate.data-dir"), env.get("TOLLGATE_DATA_DIR"),
                DEFAULT_DATA_DIR));
        if (!setUp && !EmbeddedPostgresDatastore.holdsData(dataDir)) {
            Path pgData = dataDir.resolve("postgres");
            if (Files.isDirectory(pgData)
                    && !(Files.isReadable(pgData) && Files.isExecutable(pgData))) {
                // The data is there, this user may not read it (a command run as another user than the gateway's).
                throw new AccessDeniedException(pgData.toAbsolutePath().normalize().toString());
            }
            throw new NoDataDirectoryException(dataDir.toAbsolutePath().normalize());
        }
        EmbeddedPostgresDatastore embedded = EmbeddedPostgresDatastore.attachOrStart(dataDir, true);
        Map<String, Object> properties = new HashMap<>();
        properties.put("datasources.default.url", embedded.jdbcUrl());
        properties.put("datasources.default.username", embedded.username());
        properties.put("datasources.default.password", embedded.password());
        String how = embedded.startedHere() ? "started by this process" : "already running, attached";
        return new Datastore(properties, "embedded PostgreSQL 17 with data in " + embedded.dataDirectory()
                + " (port " + embedded.port() + ", " + how + ")", embedded);
    }

    /** The embedded default has no data where a command looked for it. */
    public static final class NoDataDirectoryException extends IllegalStateException {
        NoDataDirectoryException(Path dataDir) {
            super("no Tollgate data in " + dataDir + " (nothing was created there): run this command in the "
                    + "directory the gateway runs in (its data is in ./" + DEFAULT_DATA_DIR + "), or set "
                    + "TOLLGATE_DATA_DIR to the gateway's data directory, or DATASOURCES_DEFAULT_URL to its PostgreSQL; "
                    + "for a new installation, start the gateway once first");
        }
    }

    /** Properties that point the default datasource at the chosen server (none for an external URL). */
    public Map<String, Object> properties() {
        return properties;
    }

    /** One line for the log: which datastore is in use. Never contains credentials. */
    public String description() {
        return description;
    }

    /**
     * Refuses what the PostgreSQL driver would misread: another scheme (its error names no setting), and a user and
     * password written as {@code user:password@host}, which the driver takes for a host name and would print.
     */
    static void check(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("DATASOURCES_DEFAULT_URL must be a PostgreSQL JDBC URL such as "
                    + "jdbc:postgresql://db:5432/tollgate; it was " + redact(jdbcUrl));
        }
        if (jdbcUrl.matches("jdbc:postgresql://[^/?]*@.*")) {
            throw new IllegalArgumentException("DATASOURCES_DEFAULT_URL: the PostgreSQL driver does not read a user "
                    + "and password written before the host (user:password@host); set DATASOURCES_DEFAULT_USERNAME "
                    + "and DATASOURCES_DEFAULT_PASSWORD instead; the URL was " + redact(jdbcUrl));
        }
    }

    /** Drops user info and query parameters (which may carry a password) from a JDBC URL. */
    static String redact(String jdbcUrl) {
        String withoutQuery = jdbcUrl.replaceFirst("\\?.*$", "");
        return withoutQuery.replaceFirst("//[^/@]*@", "//");
    }

    private static String firstNonBlank(String... values) {
        for (String value : values) {
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    /** Stops the embedded server if this process started it; idempotent and never throws. */
    @Override
    public synchronized void close() {
        if (embedded != null && !closed) {
            closed = true;
            try {
                embedded.close();
            } catch (IOException | RuntimeException e) {
                LoggerFactory.getLogger(Datastore.class).warn("Stopping the embedded PostgreSQL failed: {}",
                        e.getMessage());
            }
        }
    }
}
