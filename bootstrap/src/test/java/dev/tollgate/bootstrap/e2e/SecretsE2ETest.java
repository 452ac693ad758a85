package dev.tollgate.bootstrap.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Raw keys exist only in the create response: never in the database, the logs or a later response. */
@MicronautTest(transactional = false)
class SecretsE2ETest extends GatewayE2ETest {

    /** A raw key: prefix followed by at least 20 key characters (a label shows only 3). */
    private static final Pattern RAW_KEY = Pattern.compile("gpm?-[0-9A-Za-z]{20,}");

    @Test
    void noRawKeyIsStoredLoggedOrShownAgain() throws SQLException {
        Email email = newAccount(true);
        String gpm = managementKey(email, ManagementAccess.READ_WRITE);
        Reply created = createKey(gpm, "{\"name\":\"secret-test\",\"limit\":1}");
        String gp = (String) created.json().get("key");
        String hash = (String) created.data().get("hash");
        // Traffic that carries the raw keys in headers, including failing requests that get logged.
        get("/api/v1/keys", gpm);
        get("/api/v1/keys", gp);
        patch("/api/v1/keys/" + hash, gpm, "{\"name\":\"renamed\"}");
        post("/api/v1/keys", gpm, "{broken");
        String listed = get("/api/v1/keys?include_disabled=true", gpm).raw().body();
        assertFalse(listed.contains(gp), "list must not show the raw key");

        List<String> rows = dumpDatabase();
        assertTrue(rows.stream().anyMatch(r -> r.contains(hash)), "the hash is stored");
        for (String row : rows) {
            assertFalse(row.contains(gp) || row.contains(gpm), "raw key stored: " + row);
            assertFalse(RAW_KEY.matcher(row).find(), "something shaped like a raw key stored: " + row);
        }
        for (String line : CapturedLogs.lines()) {
            assertFalse(line.contains(gp) || line.contains(gpm), "raw key logged: " + line);
            assertFalse(RAW_KEY.matcher(line).find(), "something shaped like a raw key logged: " + line);
        }
    }

    /** Every row of every table of the schema, as text. */
    private List<String> dumpDatabase() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection connection = database();
                Statement statement = connection.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertTrue(tables.contains("api_key") && tables.contains("management_key"), tables.toString());
            for (String table : tables) {
                try (ResultSet rs = statement.executeQuery("SELECT t::text FROM " + table + " t")) {
                    while (rs.next()) {
                        rows.add(table + ": " + rs.getString(1));
                    }
                }
            }
        }
        assertEquals(false, rows.isEmpty());
        return rows;
    }
}
