package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.billing.AccountCredit;
import dev.tollgate.domain.shared.Usd;
import java.util.List;

/**
 * Out port: the durable record of every credit to an account's balance, written in the same transaction as the
 * balance change ({@link TransactionRunner}).
 */
public interface CreditLedger {

    void record(AccountCredit credit);

    /** The account's credits, newest first (ties: the later written first). */
    List<AccountCredit> history(AccountId account, int offset, int limit);

    /** The sum of all the account's credits. */
    Usd total(AccountId account);
}
