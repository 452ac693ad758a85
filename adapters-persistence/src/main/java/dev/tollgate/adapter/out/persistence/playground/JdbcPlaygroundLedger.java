package dev.tollgate.adapter.out.persistence.playground;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.PlaygroundLedger;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Types;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: the operator's cost of the anonymous playground, one {@code playground_ledger} row per
 * request. Called on the blocking executor when a playground request ends; a row that cannot be written is logged
 * (the visitor was not charged anything, so nothing is owed either way).
 */
@Singleton
public class JdbcPlaygroundLedger implements PlaygroundLedger {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcPlaygroundLedger.class);

    private final TransactionOperations<Connection> transactions;

    JdbcPlaygroundLedger(TransactionOperations<Connection> transactions) {
        this.transactions = transactions;
    }

    @Override
    public void record(BillingLedger.Settlement s) {
        try {
            transactions.executeWrite(status -> {
                try (PreparedStatement insert = status.getConnection().prepareStatement("INSERT INTO "
                        + "playground_ledger (request_id, model, provider, prompt_tokens, completion_tokens, "
                        + "cost_micros, status, finished_at, latency_ms, ttft_ms, streamed) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING")) {
                    insert.setString(1, s.requestId());
                    insert.setString(2, s.model());
                    insert.setString(3, s.provider());
                    insert.setLong(4, s.usage().promptTokens());
                    insert.setLong(5, s.usage().completionTokens());
                    insert.setLong(6, s.cost().micros());
                    insert.setString(7, s.status());
                    insert.setObject(8, s.finishedAt().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC));
                    setNullable(insert, 9, s.latencyMillis());
                    setNullable(insert, 10, s.timeToFirstTokenMillis());
                    insert.setBoolean(11, s.streamed());
                    return insert.executeUpdate();
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Could not record playground request {} ({} {}): {}", s.requestId(), s.model(), s.status(),
                    e.getMessage());
        }
    }

    private static void setNullable(PreparedStatement statement, int index, Long value) throws java.sql.SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value);
        }
    }
}
