package dev.tollgate.application.port.out;

import dev.tollgate.application.testing.AbstractAccountRepositoryContractTest;
import dev.tollgate.application.testing.AbstractApiKeyRepositoryContractTest;
import dev.tollgate.application.testing.AbstractCreditLedgerContractTest;
import dev.tollgate.application.testing.AbstractPlaygroundKeysContractTest;
import dev.tollgate.application.testing.InMemoryPlaygroundKeys;
import dev.tollgate.application.testing.AbstractUsageQueriesContractTest;
import dev.tollgate.application.testing.InMemoryApiKeyRepository;
import dev.tollgate.application.testing.InMemoryBillingLedger;
import dev.tollgate.application.testing.InMemoryCreditLedger;
import dev.tollgate.application.testing.InMemoryUsageQueries;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.application.testing.AbstractCredentialRepositoryContractTest;
import dev.tollgate.application.testing.AbstractKeySpendRepositoryContractTest;
import dev.tollgate.application.testing.AbstractManagementKeyRepositoryContractTest;
import dev.tollgate.application.testing.AbstractQuotaCounterContractTest;
import dev.tollgate.application.testing.AbstractSessionRepositoryContractTest;
import dev.tollgate.application.testing.InMemoryQuotaCounter;
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

    @Nested
    class Credentials extends AbstractCredentialRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }

    @Nested
    class Sessions extends AbstractSessionRepositoryContractTest {
        @Override
        protected PersistenceStores stores() {
            return PersistenceStores.inMemory();
        }
    }

    @Nested
    class Quotas extends AbstractQuotaCounterContractTest {
        @Override
        protected QuotaCounter counter() {
            return new InMemoryQuotaCounter();
        }
    }

    @Nested
    class Credits extends AbstractCreditLedgerContractTest {
        private final PersistenceStores stores = PersistenceStores.inMemory();
        private final InMemoryCreditLedger credits = new InMemoryCreditLedger();

        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected CreditLedger credits() {
            return credits;
        }
    }

    @Nested
    class Usage extends AbstractUsageQueriesContractTest {
        private final PersistenceStores stores = PersistenceStores.inMemory();
        private final InMemoryBillingLedger ledger = new InMemoryBillingLedger(stores.spend());
        private final InMemoryUsageQueries usage = new InMemoryUsageQueries(ledger,
                (InMemoryApiKeyRepository) stores.apiKeys());

        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected BillingLedger ledger() {
            return ledger;
        }

        @Override
        protected UsageQueries usage() {
            return usage;
        }

        @Override
        protected void fund(AccountId account, Usd amount) {
            ledger.openAccount(account, amount);
        }
    }

    @Nested
    class Playground extends AbstractPlaygroundKeysContractTest {
        private final PersistenceStores stores = PersistenceStores.inMemory();
        private final InMemoryPlaygroundKeys keys = new InMemoryPlaygroundKeys();

        @Override
        protected PersistenceStores stores() {
            return stores;
        }

        @Override
        protected PlaygroundKeys playgroundKeys() {
            return keys;
        }
    }
}
