package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.SpendLimitPolicy;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.SpendWindows;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Persistence adapter: {@link BillingLedger} on PostgreSQL. A hold is one transaction that locks the key's row
 * (serialising the key's holds), checks settled spend plus open holds in the key's window against its limit,
 * and moves the amount from {@code balance_micros} to {@code reserved_micros} with a conditional UPDATE — so
 * neither the key's cap nor the balance can be overrun, whatever runs concurrently on however many instances.
 * Settling deletes the hold (only the first settle finds it), charges, refunds the rest and writes the ledger.
 */
@Singleton
public class JdbcBillingLedger implements BillingLedger {

    private final JdbcOperations jdbc;
    private final KeySpendRepository spend;

    JdbcBillingLedger(JdbcOperations jdbc, KeySpendRepository spend) {
        this.jdbc = jdbc;
        this.spend = spend;
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    @Override
    @Transactional
    public HoldOutcome placeHold(HoldRequest hold) {
        asynchronousCommit();
        // Only a key with a limit needs its row locked: the lock serialises that key's limit checks.
        SpendLimit limit = keyLimit(hold.apiKeyId(), false);
        if (limit != null) {
            limit = keyLimit(hold.apiKeyId(), true);
        }
        if (limit != null) {
            Usd spent = spend.usageAt(List.of(hold.apiKeyId()), hold.admittedAt())
                    .get(hold.apiKeyId()).countedAgainst(limit);
            Instant windowStart = limit.resetPeriod().map(p -> SpendWindows.windowStart(p, hold.admittedAt()))
                    .orElse(Instant.EPOCH);
            Usd held = openHolds(hold.apiKeyId(), windowStart);
            if (!SpendLimitPolicy.allows(limit, spent, held, hold.amount())) {
                return HoldOutcome.KEY_LIMIT_REACHED;
            }
        }
        // The hold row first, the account row last: the account's row lock (which every request of the account
        // queues on) is then held only for one UPDATE and the commit.
        jdbc.prepareStatement("INSERT INTO request_hold (request_id, account_id, api_key_id, amount_micros, "
                + "admitted_at, lease_until) VALUES (?, ?, ?, ?, ?, ?)", statement -> {
                    statement.setString(1, hold.requestId());
                    statement.setObject(2, hold.accountId().value());
                    statement.setObject(3, hold.apiKeyId().value());
                    statement.setLong(4, hold.amount().micros());
                    statement.setObject(5, utc(hold.admittedAt()));
                    statement.setObject(6, utc(hold.leaseUntil()));
                    return statement.executeUpdate();
                });
        int reserved = jdbc.prepareStatement("UPDATE account SET balance_micros = balance_micros - ?, "
                + "reserved_micros = reserved_micros + ? WHERE id = ? AND balance_micros >= ?", statement -> {
                    statement.setLong(1, hold.amount().micros());
                    statement.setLong(2, hold.amount().micros());
                    statement.setObject(3, hold.accountId().value());
                    statement.setLong(4, hold.amount().micros());
                    return statement.executeUpdate();
                });
        if (reserved != 1) {
            jdbc.prepareStatement("DELETE FROM request_hold WHERE request_id = ?", statement -> {
                statement.setString(1, hold.requestId());
                return statement.executeUpdate();
            });
            return HoldOutcome.INSUFFICIENT_BALANCE;
        }
        return HoldOutcome.PLACED;
    }

    /**
     * Holds and settlements commit without waiting for the WAL flush (docs/decisions.md): locks, checks and
     * constraints work exactly as before, so no cap or balance can be overrun; only a crash of PostgreSQL itself
     * (not of a gateway) can lose the last few hundred milliseconds of them, which then go unbilled.
     */
    private void asynchronousCommit() {
        jdbc.prepareStatement("SET LOCAL synchronous_commit TO OFF", statement -> statement.execute());
    }

    /** The key's spend limit, read plainly or under a row lock ({@code FOR UPDATE}). */
    private SpendLimit keyLimit(ApiKeyId key, boolean lock) {
        return jdbc.prepareStatement("SELECT limit_micros, limit_reset FROM api_key WHERE id = ?"
                + (lock ? " FOR UPDATE" : ""), statement -> {
                    statement.setObject(1, key.value());
                    try (ResultSet rs = statement.executeQuery()) {
                        if (!rs.next()) {
                            throw new IllegalStateException("api key " + key + " is not stored");
                        }
                        long micros = rs.getLong(1);
                        if (rs.wasNull()) {
                            return null;
                        }
                        String reset = rs.getString(2);
                        return new SpendLimit(Usd.ofMicros(micros),
                                reset == null ? null : LimitReset.fromWireName(reset).orElseThrow());
                    }
                });
    }

    private Usd openHolds(ApiKeyId key, Instant windowStart) {
        return jdbc.prepareStatement("SELECT coalesce(sum(amount_micros), 0) FROM request_hold "
                + "WHERE api_key_id = ? AND admitted_at >= ?", statement -> {
                    statement.setObject(1, key.value());
                    statement.setObject(2, utc(windowStart));
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        return Usd.ofMicros(rs.getLong(1));
                    }
                });
    }

    private record OpenHold(UUID accountId, UUID apiKeyId, long amountMicros, Instant admittedAt) {
    }

    @Override
    @Transactional
    public boolean settle(Settlement settlement) {
        asynchronousCommit();
        OpenHold hold = jdbc.prepareStatement("DELETE FROM request_hold WHERE request_id = ? "
                + "RETURNING account_id, api_key_id, amount_micros, admitted_at", statement -> {
                    statement.setString(1, settlement.requestId());
                    try (ResultSet rs = statement.executeQuery()) {
                        if (!rs.next()) {
                            return null;
                        }
                        return new OpenHold(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getLong(3),
                                rs.getObject(4, OffsetDateTime.class).toInstant());
                    }
                });
        if (hold == null) {
            return false; // settled before (or swept): exactly one settlement counts
        }
        long charge = Math.min(settlement.cost().micros(), hold.amountMicros());
        // A key with a limit: take its row lock first, in the same order as placeHold (key row, then account),
        // or the two deadlock; and so a limit check never sees the hold gone but its spend not yet recorded.
        if (keyLimit(new ApiKeyId(hold.apiKeyId()), false) != null) {
            keyLimit(new ApiKeyId(hold.apiKeyId()), true);
        }
        if (charge > 0) {
            // §4.1 windows: a request counts in the window it was admitted in.
            spend.record(new ApiKeyId(hold.apiKeyId()), Usd.ofMicros(charge), hold.admittedAt());
        }
        jdbc.prepareStatement("INSERT INTO request_ledger (request_id, account_id, api_key_id, key_hash, model, "
                + "provider, prompt_tokens, completion_tokens, held_micros, cost_micros, status, admitted_at, "
                + "finished_at, latency_ms, ttft_ms, streamed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (request_id) DO NOTHING", statement -> {
                    bindLedger(statement, settlement, hold, charge);
                    return statement.executeUpdate();
                });
        // The account row last: its lock is held only for this UPDATE and the commit.
        jdbc.prepareStatement("UPDATE account SET reserved_micros = reserved_micros - ?, "
                + "balance_micros = balance_micros + ? WHERE id = ?", statement -> {
                    statement.setLong(1, hold.amountMicros());
                    statement.setLong(2, hold.amountMicros() - charge);
                    statement.setObject(3, hold.accountId());
                    return statement.executeUpdate();
                });
        return true;
    }

    private static void bindLedger(PreparedStatement statement, Settlement s, OpenHold hold, long charge)
            throws SQLException {
        statement.setString(1, s.requestId());
        statement.setObject(2, hold.accountId());
        statement.setObject(3, hold.apiKeyId());
        statement.setString(4, s.keyHash().hex());
        statement.setString(5, s.model());
        statement.setString(6, s.provider());
        statement.setLong(7, s.usage().promptTokens());
        statement.setLong(8, s.usage().completionTokens());
        statement.setLong(9, hold.amountMicros());
        statement.setLong(10, charge);
        statement.setString(11, s.status());
        statement.setObject(12, utc(hold.admittedAt()));
        statement.setObject(13, utc(s.finishedAt()));
        statement.setObject(14, s.latencyMillis());
        statement.setObject(15, s.timeToFirstTokenMillis());
        statement.setBoolean(16, s.streamed());
    }

    @Override
    @Transactional
    public long openHolds() {
        return jdbc.prepareStatement("SELECT count(*) FROM request_hold", statement -> {
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @Override
    @Transactional
    public int releaseExpired(Instant now, int max) {
        List<Map.Entry<String, String>> expired = jdbc.prepareStatement("SELECT h.request_id, k.key_hash "
                + "FROM request_hold h JOIN api_key k ON k.id = h.api_key_id WHERE h.lease_until < ? "
                + "ORDER BY h.lease_until LIMIT ? FOR UPDATE OF h SKIP LOCKED", statement -> {
                    statement.setObject(1, utc(now));
                    statement.setInt(2, max);
                    List<Map.Entry<String, String>> rows = new ArrayList<>();
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            rows.add(Map.entry(rs.getString(1), rs.getString(2)));
                        }
                    }
                    return rows;
                });
        int released = 0;
        for (Map.Entry<String, String> row : expired) {
            boolean settled = settle(new Settlement(row.getKey(), new dev.tollgate.domain.shared.KeyHash(row.getValue()),
                    "unknown", null, dev.tollgate.domain.billing.TokenUsage.NONE, Usd.ZERO, "expired", now, null, null,
                    false));
            released += settled ? 1 : 0;
        }
        return released;
    }
}
