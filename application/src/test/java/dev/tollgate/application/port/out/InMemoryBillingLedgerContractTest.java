package dev.tollgate.application.port.out;

import dev.tollgate.application.testing.AbstractBillingLedgerContractTest;
import dev.tollgate.application.testing.InMemoryBillingLedger;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import java.time.Instant;
import java.util.List;

/** The in-memory billing fake honours the same contract as the PostgreSQL ledger (JdbcBillingLedgerTest). */
class InMemoryBillingLedgerContractTest extends AbstractBillingLedgerContractTest {

    private final InMemoryBillingLedger ledger = new InMemoryBillingLedger();

    @Override
    protected BillingLedger ledger() {
        return ledger;
    }

    @Override
    protected Payer newPayer(Usd balance, SpendLimit limit) {
        Payer payer = new Payer(AccountId.newId(), ApiKeyId.newId(), new KeyHash("c".repeat(64)));
        ledger.openAccount(payer.accountId(), balance);
        ledger.limitKey(payer.apiKeyId(), limit);
        return payer;
    }

    @Override
    protected Usd available(AccountId account) {
        return ledger.available(account);
    }

    @Override
    protected Usd reserved(AccountId account) {
        return ledger.reserved(account);
    }

    @Override
    protected KeyUsage usage(ApiKeyId key, Instant at) {
        return ledger.spend().usageAt(List.of(key), at).get(key);
    }

    @Override
    protected boolean holdOpen(String requestId) {
        return ledger.openHold(requestId).isPresent();
    }

    @Override
    protected List<Entry> ledgerRows(String requestId) {
        return ledger.ledgerRow(requestId).map(r -> List.of(new Entry(r.status(), r.held().micros(),
                r.cost().micros(), r.usage().promptTokens(), r.usage().completionTokens()))).orElse(List.of());
    }
}
