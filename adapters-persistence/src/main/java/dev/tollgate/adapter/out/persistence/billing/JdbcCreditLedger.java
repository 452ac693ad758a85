package dev.tollgate.adapter.out.persistence.billing;

import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.billing.CreditSource;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Persistence adapter: {@link CreditLedger} on PostgreSQL ({@code account_credit}, migration V7). Writes join the
 * surrounding transaction, so a credit's line and its balance change commit together.
 */
@Singleton
public class JdbcCreditLedger implements CreditLedger {

    private final JdbcOperations jdbc;

    JdbcCreditLedger(JdbcOperations jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    @Transactional
    public void record(AccountCredit credit) {
        jdbc.prepareStatement("INSERT INTO account_credit (id, account_id, amount_micros, source, note, "
                + "balance_after_micros, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", statement -> {
                    statement.setObject(1, credit.id());
                    statement.setObject(2, credit.accountId().value());
                    statement.setLong(3, credit.amount().micros());
                    statement.setString(4, credit.source().wireName());
                    statement.setString(5, credit.note());
                    statement.setLong(6, credit.balanceAfter().micros());
                    statement.setObject(7, credit.createdAt().atOffset(ZoneOffset.UTC));
                    return statement.executeUpdate();
                });
    }

    @Override
    @Transactional(readOnly = true)
    public List<AccountCredit> history(AccountId account, int offset, int limit) {
        return jdbc.prepareStatement("SELECT id, amount_micros, source, note, balance_after_micros, created_at "
                + "FROM account_credit WHERE account_id = ? ORDER BY created_at DESC, seq DESC OFFSET ? LIMIT ?",
                statement -> {
                    statement.setObject(1, account.value());
                    statement.setInt(2, offset);
                    statement.setInt(3, limit);
                    List<AccountCredit> credits = new ArrayList<>();
                    try (ResultSet rs = statement.executeQuery()) {
                        while (rs.next()) {
                            credits.add(new AccountCredit(rs.getObject(1, UUID.class), account,
                                    Usd.ofMicros(rs.getLong(2)), CreditSource.fromWireName(rs.getString(3))
                                            .orElseThrow(), rs.getString(4), Usd.ofMicros(rs.getLong(5)),
                                    rs.getObject(6, OffsetDateTime.class).toInstant()));
                        }
                    }
                    return credits;
                });
    }

    @Override
    @Transactional(readOnly = true)
    public Usd total(AccountId account) {
        return jdbc.prepareStatement("SELECT coalesce(sum(amount_micros), 0) FROM account_credit WHERE account_id = ?",
                statement -> {
                    statement.setObject(1, account.value());
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        return Usd.ofMicros(rs.getLong(1));
                    }
                });
    }
}
