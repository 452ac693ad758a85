package dev.tollgate.adapter.out.persistence;

import dev.tollgate.adapter.out.persistence.account.JdbcAccountRepository;
import dev.tollgate.adapter.out.persistence.apikey.JdbcApiKeyRepository;
import dev.tollgate.adapter.out.persistence.common.JdbcTransactionRunner;
import dev.tollgate.adapter.out.persistence.managementkey.JdbcManagementKeyRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcCredentialRepository;
import dev.tollgate.adapter.out.persistence.session.JdbcSessionRepository;
import dev.tollgate.adapter.out.persistence.spend.JdbcKeySpendRepository;
import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.testing.AbstractAccountRepositoryContractTest;
import dev.tollgate.application.testing.AbstractApiKeyRepositoryContractTest;
import dev.tollgate.application.testing.AbstractCredentialRepositoryContractTest;
import dev.tollgate.application.testing.AbstractKeySpendRepositoryContractTest;
import dev.tollgate.application.testing.AbstractManagementKeyRepositoryContractTest;
import dev.tollgate.application.testing.AbstractSessionRepositoryContractTest;
import dev.tollgate.application.testing.PersistenceStores;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/** Runs every out-port contract against the PostgreSQL adapters, on a real PostgreSQL migrated by Flyway. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcStoresContractTest {

    private ApplicationContext context;

    @BeforeAll
    void startContext() {
        context = ApplicationContext.run(TestDatabase.properties());
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    PersistenceStores jdbcStores() {
        return new PersistenceStores(context.getBean(JdbcAccountRepository.class),
                context.getBean(JdbcApiKeyRepository.class), context.getBean(JdbcManagementKeyRepository.class),
                context.getBean(JdbcKeySpendRepository.class), context.getBean(JdbcTransactionRunner.class),
                context.getBean(JdbcCredentialRepository.class), context.getBean(JdbcSessionRepository.class));
    }

    @Nested
    class Accounts extends AbstractAccountRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }

    @Nested
    class ApiKeys extends AbstractApiKeyRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }

    @Nested
    class ManagementKeys extends AbstractManagementKeyRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }

    @Nested
    class Spend extends AbstractKeySpendRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }

    @Nested
    class Credentials extends AbstractCredentialRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }

    @Nested
    class Sessions extends AbstractSessionRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return jdbcStores();
        }
    }
}
