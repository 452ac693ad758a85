package dev.tollgate.adapter.out.persistence.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Migration V13 cuts the three random characters that labels written before it showed ({@code gp-AbC...x9Yz} →
 * {@code gp-...x9Yz}, G10), in both key tables, and leaves a label already in the new form as it is.
 */
class LabelMigrationTest {

    @Test
    void storedLabelsLoseTheirRandomCharacters() throws SQLException {
        Map<String, Object> db = TestDatabase.properties();
        String url = (String) db.get("datasources.default.url");
        String user = (String) db.get("datasources.default.username");
        String password = (String) db.get("datasources.default.password");
        String name = "labels_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection admin = DriverManager.getConnection(url, user, password);
                Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        String own = url.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
        Flyway.configure().dataSource(own, user, password).target("12").load().migrate();
        try (Connection c = DriverManager.getConnection(own, user, password); Statement s = c.createStatement()) {
            String account = UUID.randomUUID().toString();
            s.execute("INSERT INTO account (id, email, created_at, updated_at) VALUES ('" + account
                    + "', 'a@example.com', now(), now())");
            s.execute("INSERT INTO api_key (id, account_id, key_hash, label, name, created_at, updated_at) VALUES "
                    + row(account, "a", "gp-AbC...x9Yz", "old") + ", " + row(account, "b", "gp-...Qr5t", "new"));
            s.execute("INSERT INTO management_key (id, account_id, name, access, key_hash, label, created_at, "
                    + "updated_at) VALUES ('" + UUID.randomUUID() + "', '" + account + "', 'ops', 'read_write', '"
                    + "c".repeat(64) + "', 'gpm-Z9x...V9UV', now(), now())");

            Flyway.configure().dataSource(own, user, password).load().migrate();

            assertEquals(List.of("gp-...Qr5t", "gp-...x9Yz"), labels(s, "api_key"));
            assertEquals(List.of("gpm-...V9UV"), labels(s, "management_key"));
        }
    }

    private static String row(String account, String hashChar, String label, String name) {
        return "('" + UUID.randomUUID() + "', '" + account + "', '" + hashChar.repeat(64) + "', '" + label + "', '"
                + name + "', now(), now())";
    }

    private static List<String> labels(Statement s, String table) throws SQLException {
        List<String> labels = new ArrayList<>();
        try (ResultSet rows = s.executeQuery("SELECT label FROM " + table + " ORDER BY label")) {
            while (rows.next()) {
                labels.add(rows.getString(1));
            }
        }
        return labels;
    }
}
