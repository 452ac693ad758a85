package dev.tollgate.adapter.out.persistence.spend;

import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import dev.tollgate.domain.spend.SpendWindows;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Persistence adapter: {@link KeySpendRepository} on PostgreSQL. One row per key and window in
 * {@code api_key_spend}; a charge is one upsert of four rows, so concurrent charges add up exactly.
 */
@Singleton
public class JdbcKeySpendRepository implements KeySpendRepository {

    private static final OffsetDateTime LIFETIME_START = Instant.EPOCH.atOffset(ZoneOffset.UTC);
    private static final String LIFETIME = "lifetime";

    private final JdbcOperations jdbc;

    JdbcKeySpendRepository(JdbcOperations jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    @Transactional
    public Map<ApiKeyId, KeyUsage> usageAt(Collection<ApiKeyId> keys, Instant at) {
        Map<ApiKeyId, KeyUsage> usage = new HashMap<>();
        if (keys.isEmpty()) {
            return usage;
        }
        Map<ApiKeyId, Map<LimitReset, Long>> windows = new HashMap<>();
        Map<ApiKeyId, Long> lifetime = new HashMap<>();
        jdbc.prepareStatement("SELECT api_key_id, period, spent_micros FROM api_key_spend WHERE api_key_id = ANY (?) "
                + "AND (period = 'lifetime' OR (period = 'daily' AND period_start = ?) "
                + "OR (period = 'weekly' AND period_start = ?) OR (period = 'monthly' AND period_start = ?))",
                statement -> {
                    Array ids = statement.getConnection().createArrayOf("uuid",
                            keys.stream().map(ApiKeyId::value).toArray(UUID[]::new));
                    statement.setArray(1, ids);
                    statement.setObject(2, start(LimitReset.DAILY, at));
                    statement.setObject(3, start(LimitReset.WEEKLY, at));
                    statement.setObject(4, start(LimitReset.MONTHLY, at));
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            ApiKeyId key = new ApiKeyId(rs.getObject(1, UUID.class));
                            String period = rs.getString(2);
                            long micros = rs.getLong(3);
                            if (LIFETIME.equals(period)) {
                                lifetime.put(key, micros);
                            } else {
                                LimitReset reset = LimitReset.fromWireName(period).orElseThrow();
                                windows.computeIfAbsent(key, k -> new EnumMap<>(LimitReset.class)).put(reset, micros);
                            }
                        }
                    }
                    return null;
                });
        for (ApiKeyId key : keys) {
            Map<LimitReset, Long> w = windows.getOrDefault(key, Map.of());
            usage.put(key, new KeyUsage(Usd.ofMicros(lifetime.getOrDefault(key, 0L)),
                    Usd.ofMicros(w.getOrDefault(LimitReset.DAILY, 0L)),
                    Usd.ofMicros(w.getOrDefault(LimitReset.WEEKLY, 0L)),
                    Usd.ofMicros(w.getOrDefault(LimitReset.MONTHLY, 0L))));
        }
        return usage;
    }

    @Override
    @Transactional
    public void record(ApiKeyId key, Usd amount, Instant at) {
        jdbc.prepareStatement("INSERT INTO api_key_spend (api_key_id, period, period_start, spent_micros) VALUES "
                + "(?, 'lifetime', ?, ?), (?, 'daily', ?, ?), (?, 'weekly', ?, ?), (?, 'monthly', ?, ?) "
                + "ON CONFLICT (api_key_id, period, period_start) "
                + "DO UPDATE SET spent_micros = api_key_spend.spent_micros + EXCLUDED.spent_micros",
                statement -> {
                    OffsetDateTime[] starts = {LIFETIME_START, start(LimitReset.DAILY, at), start(LimitReset.WEEKLY, at),
                            start(LimitReset.MONTHLY, at)};
                    for (int i = 0; i < starts.length; i++) {
                        statement.setObject(i * 3 + 1, key.value());
                        statement.setObject(i * 3 + 2, starts[i]);
                        statement.setLong(i * 3 + 3, amount.micros());
                    }
                    return statement.executeUpdate();
                });
    }

    private static OffsetDateTime start(LimitReset period, Instant at) {
        return SpendWindows.windowStart(period, at).atOffset(ZoneOffset.UTC);
    }
}
