package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import java.util.Optional;

/**
 * Out port: a payment provider through which an account's owner could add funds themselves. Tollgate ships no real
 * provider: its one adapter offers nothing, and the operator credits accounts ({@code admin account credit}).
 */
public interface PaymentProvider {

    /** Where the owner of an account can pay (an https address), and whose page it is. */
    record TopUp(String provider, String checkoutUrl) {
    }

    /** A way for this account to add funds, or empty when only the operator can. */
    Optional<TopUp> topUp(AccountId account);
}
