package dev.tollgate.adapter.out.persistence.playground;

import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHash;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.ResultSet;
import java.util.Optional;

/** Persistence adapter: {@link PlaygroundKeys} on PostgreSQL ({@code dashboard_playground_key}, migration V8). */
@Singleton
public class JdbcPlaygroundKeys implements PlaygroundKeys {

    private final JdbcOperations jdbc;

    JdbcPlaygroundKeys(JdbcOperations jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    @Transactional(readOnly = true)
    public Optional<KeyHash> find(AccountId account) {
        return jdbc.prepareStatement("SELECT key_hash FROM dashboard_playground_key WHERE account_id = ?",
                statement -> {
                    statement.setObject(1, account.value());
                    try (ResultSet rs = statement.executeQuery()) {
                        return rs.next() ? Optional.of(new KeyHash(rs.getString(1))) : Optional.empty();
                    }
                });
    }

    @Override
    @Transactional
    public void assign(AccountId account, ApiKeyId key, KeyHash hash) {
        jdbc.prepareStatement("INSERT INTO dashboard_playground_key (account_id, api_key_id, key_hash) VALUES (?, ?, ?) "
                + "ON CONFLICT (account_id) DO UPDATE SET api_key_id = excluded.api_key_id, key_hash = excluded.key_hash",
                statement -> {
                    statement.setObject(1, account.value());
                    statement.setObject(2, key.value());
                    statement.setString(3, hash.hex());
                    return statement.executeUpdate();
                });
    }
}
