package dev.tollgate.adapter.out.persistence.account;

import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.data.jdbc.runtime.JdbcOperations;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/** Persistence adapter: {@link AccountRepository} on PostgreSQL. */
@Singleton
public class JdbcAccountRepository implements AccountRepository {

    private final AccountRowRepository rows;
    private final JdbcOperations jdbc;

    JdbcAccountRepository(AccountRowRepository rows, JdbcOperations jdbc) {
        this.rows = rows;
        this.jdbc = jdbc;
    }

    @Override
    public boolean insert(Account account) {
        return rows.insertIfEmailFree(account.id().value(), account.email().value(), account.emailVerified(),
                account.createdAt()) == 1;
    }

    @Override
    public Optional<Account> findById(AccountId id) {
        return rows.findById(id.value()).map(JdbcAccountRepository::toDomain);
    }

    @Override
    public Optional<Account> findByEmail(Email email) {
        return rows.findByEmail(email.value()).map(JdbcAccountRepository::toDomain);
    }

    @Override
    public Optional<Account> lockById(AccountId id) {
        return rows.lockById(id.value()).map(JdbcAccountRepository::toDomain);
    }

    @Override
    public boolean markEmailVerified(AccountId id, Instant now) {
        return rows.markEmailVerified(id.value(), now) == 1;
    }

    @Override
    @Transactional
    public Optional<Usd> credit(AccountId id, Usd amount, Instant now) {
        // One statement: the increment is atomic however many credits and charges run at once.
        return jdbc.prepareStatement(
                "UPDATE account SET balance_micros = balance_micros + ?, updated_at = ? WHERE id = ? "
                        + "RETURNING balance_micros + reserved_micros - (SELECT coalesce(sum(h.amount_micros), 0) "
                        + "FROM request_hold h WHERE h.account_id = account.id)",
                statement -> {
                    statement.setLong(1, amount.micros());
                    statement.setObject(2, now.atOffset(ZoneOffset.UTC));
                    statement.setObject(3, id.value());
                    try (ResultSet result = statement.executeQuery()) {
                        return result.next() ? Optional.of(Usd.ofMicros(result.getLong(1))) : Optional.empty();
                    }
                });
    }

    private static Account toDomain(AccountRow row) {
        return Account.restore(new AccountId(row.id()), new Email(row.email()), row.emailVerified(),
                Usd.ofMicros(row.balanceMicros()), row.createdAt());
    }
}
