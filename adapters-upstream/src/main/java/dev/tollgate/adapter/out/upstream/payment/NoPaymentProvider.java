package dev.tollgate.adapter.out.upstream.payment;

import dev.tollgate.application.port.out.PaymentProvider;
import dev.tollgate.domain.account.AccountId;
import java.util.Optional;

/**
 * Payment adapter: no payment provider. Tollgate integrates none (docs/decisions.md, "Balance"): account owners
 * cannot pay by themselves, and the operator credits their accounts ({@code admin account credit}). A real provider
 * would be another adapter of {@link PaymentProvider} wired instead of this one.
 */
public final class NoPaymentProvider implements PaymentProvider {

    @Override
    public Optional<TopUp> topUp(AccountId account) {
        return Optional.empty();
    }
}
