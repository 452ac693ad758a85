package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.application.testing.AbstractQuotaCounterContractTest;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The {@link QuotaCounter} contract on the machine's Redis. */
class RedisQuotaCounterContractTest extends AbstractQuotaCounterContractTest {

    private static final String PREFIX = RedisTestSupport.uniquePrefix("contract");
    private static RedisQuotaCounter counter;

    @BeforeAll
    static void connect() {
        counter = RedisQuotaCounter.connect(RedisTestSupport.URI, PREFIX, RedisTestSupport.PATIENT,
                RedisQuotaCounter.DEFAULT_LEASE_TTL, Clock.systemUTC());
    }

    @AfterAll
    static void closeAndClean() {
        counter.close();
        RedisTestSupport.deleteAll(PREFIX);
    }

    @Override
    protected QuotaCounter counter() {
        return counter;
    }
}
