package dev.tollgate.bootstrap.wiring;

import dev.tollgate.adapter.out.upstream.payment.NoPaymentProvider;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.CreditLedger;
import dev.tollgate.application.port.out.PaymentProvider;
import dev.tollgate.application.port.out.UsageQueries;
import dev.tollgate.application.service.usage.UsageService;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Wiring: the dashboard's usage, activity and balance use cases, and the (absent) payment provider. */
@Factory
public class UsageFactory {

    @Singleton
    PaymentProvider paymentProvider() {
        return new NoPaymentProvider();
    }

    @Singleton
    UsageService usage(AccountRepository accounts, ApiKeyRepository apiKeys, UsageQueries usage,
            CreditLedger credits, PaymentProvider payments, Clock clock) {
        return new UsageService(accounts, apiKeys, usage, credits, payments, clock);
    }
}
