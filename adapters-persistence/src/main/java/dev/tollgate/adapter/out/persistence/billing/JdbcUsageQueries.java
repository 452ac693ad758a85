package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Persistence adapter: {@link UsageQueries} on PostgreSQL. Days are aggregated by the database (UTC dates of
 * {@code admitted_at}) from the covering index {@code request_ledger_account_admitted} (migration V7); activity pages
 * walk the same index (or the key's, or the account-and-model one); the distinct models are found by a skip scan;
 * the total spend is the sum of the keys' lifetime spend rows, written in the same transactions as the ledger rows.
 */
@Singleton
public class JdbcUsageQueries implements UsageQueries {

    /** Most models {@link #models} returns (a filter list, not an export). */
    static final int MAX_MODELS = 500;

    private final JdbcOperations jdbc;

    JdbcUsageQueries(JdbcOperations jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    @Transactional(readOnly = true)
    public List<DailyUsage> daily(AccountId account, Filter filter, Instant from, Instant to) {
        String sql = "SELECT (l.admitted_at AT TIME ZONE 'UTC')::date AS day, sum(l.cost_micros), "
                + "sum(l.prompt_tokens), sum(l.completion_tokens), count(*) FROM request_ledger l "
                + "WHERE l.account_id = ? AND l.admitted_at >= ? AND l.admitted_at < ?" + conditions(filter)
                + " GROUP BY day ORDER BY day";
        return jdbc.prepareStatement(sql, statement -> {
            statement.setObject(1, account.value());
            statement.setObject(2, from.atOffset(ZoneOffset.UTC));
            statement.setObject(3, to.atOffset(ZoneOffset.UTC));
            bind(statement, 4, filter);
            List<DailyUsage> days = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    days.add(new DailyUsage(rs.getObject(1, LocalDate.class), Usd.ofMicros(rs.getLong(2)),
                            rs.getLong(3), rs.getLong(4), rs.getLong(5)));
                }
            }
            return days;
        });
    }

    @Override
    @Transactional(readOnly = true)
    public List<Activity> activity(AccountId account, Filter filter, int offset, int limit) {
        String sql = "SELECT l.request_id, l.admitted_at, l.finished_at, l.api_key_id, k.name, k.label, l.model, "
                + "l.provider, l.prompt_tokens, l.completion_tokens, l.cost_micros, l.status, l.latency_ms "
                + "FROM request_ledger l LEFT JOIN api_key k ON k.id = l.api_key_id WHERE l.account_id = ?"
                + conditions(filter) + " ORDER BY l.admitted_at DESC, l.request_id DESC OFFSET ? LIMIT ?";
        return jdbc.prepareStatement(sql, statement -> {
            statement.setObject(1, account.value());
            int next = bind(statement, 2, filter);
            statement.setInt(next, offset);
            statement.setInt(next + 1, limit);
            List<Activity> rows = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    long latency = rs.getLong(13);
                    Long latencyMillis = rs.wasNull() ? null : latency;
                    rows.add(new Activity(rs.getString(1), instant(rs, 2), instant(rs, 3),
                            new ApiKeyId(rs.getObject(4, UUID.class)), rs.getString(5), rs.getString(6),
                            rs.getString(7), rs.getString(8), rs.getLong(9), rs.getLong(10),
                            Usd.ofMicros(rs.getLong(11)), rs.getString(12), latencyMillis));
                }
            }
            return rows;
        });
    }

    @Override
    @Transactional(readOnly = true)
    public List<String> models(AccountId account) {
        // A skip scan over (account_id, model, ...): one index probe per distinct model, not one row per request.
        String sql = "WITH RECURSIVE m(model) AS ("
                + " (SELECT model FROM request_ledger WHERE account_id = ? ORDER BY model LIMIT 1)"
                + " UNION ALL"
                + " SELECT (SELECT r.model FROM request_ledger r WHERE r.account_id = ? AND r.model > m.model"
                + " ORDER BY r.model LIMIT 1) FROM m WHERE m.model IS NOT NULL"
                + ") SELECT model FROM m WHERE model IS NOT NULL LIMIT ?";
        return jdbc.prepareStatement(sql, statement -> {
            statement.setObject(1, account.value());
            statement.setObject(2, account.value());
            statement.setInt(3, MAX_MODELS);
            List<String> models = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    models.add(rs.getString(1));
                }
            }
            return models;
        });
    }

    @Override
    @Transactional(readOnly = true)
    public Usd totalSpend(AccountId account) {
        return jdbc.prepareStatement("SELECT coalesce(sum(s.spent_micros), 0) FROM api_key_spend s "
                + "JOIN api_key k ON k.id = s.api_key_id WHERE k.account_id = ? AND s.period = 'lifetime'",
                statement -> {
                    statement.setObject(1, account.value());
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        return Usd.ofMicros(rs.getLong(1));
                    }
                });
    }

    private static String conditions(Filter filter) {
        return (filter.key() != null ? " AND l.api_key_id = ?" : "") + (filter.model() != null ? " AND l.model = ?" : "");
    }

    /** Binds the filter's values from {@code index} on; returns the next free index. */
    private static int bind(PreparedStatement statement, int index, Filter filter) throws SQLException {
        int next = index;
        if (filter.key() != null) {
            statement.setObject(next++, filter.key().value());
        }
        if (filter.model() != null) {
            statement.setString(next++, filter.model());
        }
        return next;
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
