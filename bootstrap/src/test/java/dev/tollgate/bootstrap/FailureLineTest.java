package dev.tollgate.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class FailureLineTest {

    @Test
    void theDatabaseDriversOwnSentenceIsTheLineWhenTheDatabaseIsAtFault() {
        SQLException refused = new SQLException("Connection to 127.0.0.1:5433 refused. Check that the hostname and "
                + "port are correct.", "08001", new ConnectException("Connection refused"));
        RuntimeException surfaced = new RuntimeException("Bean definition [HealthMonitorTask] could not be loaded:\n"
                + "Path Taken: ...", new RuntimeException("Failed to initialize pool", refused));

        assertEquals("Connection to 127.0.0.1:5433 refused. Check that the hostname and port are correct.",
                FailureLine.of(surfaced), "the framework's bean names say nothing to an operator");
    }

    @Test
    void otherwiseTheInnermostCauseNamesTheSettingAndTheOutermostWhereItSurfaced() {
        RuntimeException failure = new RuntimeException("Error instantiating bean [Limits]",
                new IllegalArgumentException("TOLLGATE_LIMITS_KEY_PER_MINUTE must be at least 1"));

        assertEquals("TOLLGATE_LIMITS_KEY_PER_MINUTE must be at least 1", FailureLine.of(failure));
        assertEquals("the catalog is broken (while reading /etc/catalog.yml)", FailureLine.of(new RuntimeException(
                "while reading /etc/catalog.yml", new IllegalStateException("the catalog is broken"))));
        assertEquals("boom", FailureLine.of(new IllegalStateException("boom")));
        assertEquals("IllegalStateException", FailureLine.of(new IllegalStateException()));
    }

    @Test
    void aPasswordTypedIntoAJdbcUrlIsNeverRepeated() {
        String line = FailureLine.of(new RuntimeException("pool failed",
                new UnknownHostException("postgres:s3cretPW@127.0.0.1")));
        assertFalse(line.contains("s3cretPW"), line);
        assertTrue(line.contains("postgres:<masked>@127.0.0.1"), line);

        String query = FailureLine.of(new IllegalArgumentException(
                "Driver claims to not accept jdbcUrl, jdbc:postgres://db/x?user=u&Password=s3cretPW&ssl=true"));
        assertFalse(query.contains("s3cretPW"), query);
        assertTrue(query.contains("Password=<masked>&ssl=true"), query);
    }

    @Test
    void anExternalUrlIsAPostgresqlJdbcUrlWithoutCredentialsBeforeTheHost() {
        Datastore.check("jdbc:postgresql://db:5432/tollgate?connectTimeout=2&password=x");
        Datastore.check("jdbc:postgresql:tollgate");

        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
                () -> Datastore.check("jdbc:postgres://db:5432/tollgate?password=s3cretPW"));
        assertTrue(scheme.getMessage().startsWith("DATASOURCES_DEFAULT_URL must be a PostgreSQL JDBC URL"),
                scheme.getMessage());
        assertFalse(scheme.getMessage().contains("s3cretPW"), scheme.getMessage());

        IllegalArgumentException userInfo = assertThrows(IllegalArgumentException.class,
                () -> Datastore.check("jdbc:postgresql://postgres:s3cretPW@db:5432/tollgate"));
        assertTrue(userInfo.getMessage().contains("DATASOURCES_DEFAULT_USERNAME"), userInfo.getMessage());
        assertFalse(userInfo.getMessage().contains("s3cretPW"), userInfo.getMessage());
    }

    @Test
    void aFileErrorSaysWhatHappenedToThePath() {
        String denied = FailureLine.of(new java.io.IOException("wrapped",
                new java.nio.file.AccessDeniedException("/srv/tollgate/data")));
        assertTrue(denied.startsWith("permission denied: /srv/tollgate/data"), denied);
        String missing = FailureLine.of(new java.nio.file.NoSuchFileException("/srv/catalog.yml"));
        assertTrue(missing.startsWith("no such file or directory: /srv/catalog.yml"), missing);
    }
}
