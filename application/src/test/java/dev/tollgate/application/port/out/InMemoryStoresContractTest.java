package dev.tollgate.application.port.out;

import dev.tollgate.application.testing.AbstractAccountRepositoryContractTest;
import dev.tollgate.application.testing.AbstractApiKeyRepositoryContractTest;
import dev.tollgate.application.testing.AbstractKeySpendRepositoryContractTest;
import dev.tollgate.application.testing.AbstractManagementKeyRepositoryContractTest;
import dev.tollgate.application.testing.PersistenceStores;
import org.junit.jupiter.api.Nested;

/** Runs every out-port contract against the in-memory fakes, so the fakes used by service tests stay honest. */
class InMemoryStoresContractTest {

    @Nested
    class Accounts extends AbstractAccountRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }

    @Nested
    class ApiKeys extends AbstractApiKeyRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }

    @Nested
    class ManagementKeys extends AbstractManagementKeyRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }

    @Nested
    class Spend extends AbstractKeySpendRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }
}
