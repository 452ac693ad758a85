package dev.tollgate.adapter.out.persistence.common;

import dev.tollgate.application.port.out.KeyHashingRecord;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.ResultSet;

/** Persistence adapter: {@link KeyHashingRecord} in {@code deployment_setting} (migration V12). */
@Singleton
public class JdbcKeyHashingRecord implements KeyHashingRecord {

    private static final String NAME = "key-hasher";

    private final JdbcOperations jdbc;

    JdbcKeyHashingRecord(JdbcOperations jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    @Transactional
    public String recordOrRead(String fingerprint) {
        jdbc.prepareStatement("INSERT INTO deployment_setting (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                statement -> {
                    statement.setString(1, NAME);
                    statement.setString(2, fingerprint);
                    return statement.executeUpdate();
                });
        return jdbc.prepareStatement("SELECT value FROM deployment_setting WHERE name = ?", statement -> {
            statement.setString(1, NAME);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getString(1);
            }
        });
    }
}
