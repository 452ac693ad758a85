package dev.tollgate.adapter.out.persistence.billing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import io.micronaut.context.ApplicationContext;
import io.micronaut.core.type.Argument;
import io.micronaut.transaction.TransactionOperations;
import java.sql.Connection;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What instances tell each other about deciding limits alone, through a real PostgreSQL ({@link TestDatabase}). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcGatewayInstancesTest {

    private ApplicationContext context;
    private TransactionOperations<Connection> transactions;

    @BeforeAll
    void startContext() {
        context = ApplicationContext.builder().properties(TestDatabase.properties())
                .singletons(java.time.Clock.systemUTC()).start();
        transactions = context.getBean(Argument.of(TransactionOperations.class, Connection.class));
    }

    @AfterAll
    void stopContext() {
        context.close();
    }

    private JdbcGatewayInstances instance(Duration aloneLease) {
        return new JdbcGatewayInstances(transactions, aloneLease);
    }

    /** Refreshes {@code reader} until {@code condition} holds (the other's write happens in the background). */
    private static boolean eventually(JdbcGatewayInstances reader, BooleanSupplier condition) throws Exception {
        for (int i = 0; i < 250; i++) {
            reader.refresh();
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    @Test
    void anInstanceThatDecidesAloneIsSeenByTheOthersUntilItSharesAgain() throws Exception {
        JdbcGatewayInstances a = instance(Duration.ofSeconds(10));
        JdbcGatewayInstances b = instance(Duration.ofSeconds(10));
        b.refresh();
        assertFalse(b.othersAlone());
        a.alone(true);
        assertTrue(eventually(b, b::othersAlone), "b hears that a decides alone");
        a.refresh();
        assertFalse(a.othersAlone(), "an instance's own row is not another's");
        a.alone(false);
        assertTrue(eventually(b, () -> !b.othersAlone()), "b hears that a shares again");
        a.close();
        b.close();
    }

    @Test
    void anInstanceThatStopsWhileAloneIsForgottenWhenItsLeaseRunsOut() throws Exception {
        JdbcGatewayInstances gone = instance(Duration.ofMillis(300));
        JdbcGatewayInstances other = instance(Duration.ofSeconds(10));
        gone.alone(true);
        assertTrue(eventually(other, other::othersAlone));
        // Stops renewing (as a killed process would): no refresh, no close.
        assertTrue(eventually(other, () -> !other.othersAlone()), "its row ran out");
        other.close();
    }

    @Test
    void anInstanceThatStopsCleanlyWhileAloneTakesItsRowAlong() throws Exception {
        JdbcGatewayInstances stopping = instance(Duration.ofMinutes(5));
        JdbcGatewayInstances other = instance(Duration.ofSeconds(10));
        stopping.alone(true);
        assertTrue(eventually(other, other::othersAlone));
        stopping.close();
        other.refresh();
        assertFalse(other.othersAlone(), "at once, not after its five-minute lease");
        other.close();
    }
}
