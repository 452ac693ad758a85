package dev.tollgate.adapter.out.persistence.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.account.JdbcAccountRepository;
import dev.tollgate.adapter.out.persistence.apikey.JdbcApiKeyRepository;
import dev.tollgate.adapter.out.persistence.common.JdbcTransactionRunner;
import dev.tollgate.adapter.out.persistence.managementkey.JdbcManagementKeyRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcCredentialRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcSessionRepository;
import dev.tollgate.adapter.out.persistence.spend.JdbcKeySpendRepository;
import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.adapter.out.persistence.playground.JdbcPlaygroundKeys;
import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.application.testing.AbstractCreditLedgerContractTest;
import dev.tollgate.application.testing.AbstractPlaygroundKeysContractTest;
import dev.tollgate.application.testing.AbstractUsageQueriesContractTest;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.billing.CreditSource;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.context.ApplicationContext;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contracts of {@link UsageQueries}, {@link CreditLedger} and {@link PlaygroundKeys} against PostgreSQL (rows written by the real
 * {@link JdbcBillingLedger}), and what only a database can show: a credit's line and its balance change commit or
 * roll back together.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcDashboardStoresContractTest {

    private ApplicationContext context;
    private PersistenceStores stores;

    @BeforeAll
    void startContext() {
        context = ApplicationContext.builder().properties(TestDatabase.properties()).singletons(Clock.systemUTC())
                .start();
        stores = new PersistenceStores(context.getBean(JdbcAccountRepository.class),
                context.getBean(JdbcApiKeyRepository.class), context.getBean(JdbcManagementKeyRepository.class),
                context.getBean(JdbcKeySpendRepository.class), context.getBean(JdbcTransactionRunner.class),
                context.getBean(JdbcCredentialRepository.class), context.getBean(JdbcSessionRepository.class));
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    @Nested
    class Usage extends AbstractUsageQueriesContractTest {
        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected BillingLedger ledger() {
            return context.getBean(JdbcBillingLedger.class);
        }

        @Override
        protected UsageQueries usage() {
            return context.getBean(JdbcUsageQueries.class);
        }

        @Override
        protected void fund(AccountId account, Usd amount) {
            stores.accounts().credit(account, amount, NOW);
        }
    }

    @Nested
    class Credits extends AbstractCreditLedgerContractTest {
        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected CreditLedger credits() {
            return context.getBean(JdbcCreditLedger.class);
        }
    }

    @Nested
    class Playground extends AbstractPlaygroundKeysContractTest {
        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected PlaygroundKeys playgroundKeys() {
            return context.getBean(JdbcPlaygroundKeys.class);
        }
    }

    @Test
    void aCreditAndItsLineCommitOrRollBackTogether() {
        CreditLedger credits = context.getBean(JdbcCreditLedger.class);
        Instant now = Instant.parse("2026-03-04T12:00:00Z");
        Account account = stores.newAccount(now);
        assertThrows(IllegalStateException.class, () -> stores.transactions().inTransaction(() -> {
            Usd balance = stores.accounts().credit(account.id(), Usd.ofMicros(5_000_000), now).orElseThrow();
            credits.record(AccountCredit.of(account.id(), Usd.ofMicros(5_000_000), CreditSource.OPERATOR, "x",
                    balance, now));
            throw new IllegalStateException("the use case failed after both writes");
        }));
        assertEquals(Usd.ZERO, stores.accounts().findById(account.id()).orElseThrow().balance());
        assertTrue(credits.history(account.id(), 0, 10).isEmpty());

        stores.transactions().inTransaction(() -> {
            Usd balance = stores.accounts().credit(account.id(), Usd.ofMicros(5_000_000), now).orElseThrow();
            credits.record(AccountCredit.of(account.id(), Usd.ofMicros(5_000_000), CreditSource.OPERATOR, "x",
                    balance, now));
            return null;
        });
        assertEquals(Usd.ofMicros(5_000_000), stores.accounts().findById(account.id()).orElseThrow().balance());
        assertEquals(Usd.ofMicros(5_000_000), credits.history(account.id(), 0, 10).get(0).balanceAfter());
    }
}
