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

    /** A new instance (its word lasting {@code lease}) that says it decides alone, once {@code other} heard it. */
    private JdbcGatewayInstances aloneAsHeardBy(JdbcGatewayInstances other, Duration lease) throws Exception {
        JdbcGatewayInstances alone = instance(lease);
        alone.alone(true);
        assertTrue(eventually(other, other::othersAlone), "the other hears that it decides alone");
        return alone;
    }

    @Test
    void anInstanceThatDecidesAloneIsSeenByTheOthersUntilItSharesAgain() throws Exception {
        JdbcGatewayInstances b = instance(Duration.ofSeconds(10));
        b.refresh();
        assertFalse(b.othersAlone());
        JdbcGatewayInstances a = aloneAsHeardBy(b, Duration.ofSeconds(10));
        a.refresh();
        assertFalse(a.othersAlone(), "an instance's own row is not another's");
        a.alone(false);
        assertTrue(eventually(b, () -> !b.othersAlone()), "b hears that a shares again");
        a.close();
        b.close();
    }

    @Test
    void anInstanceThatStopsWhileAloneIsForgottenWhenItsLeaseRunsOut() throws Exception {
        JdbcGatewayInstances other = instance(Duration.ofSeconds(10));
        aloneAsHeardBy(other, Duration.ofMillis(300));
        // Stops renewing (as a killed process would): no refresh, no close.
        assertTrue(eventually(other, () -> !other.othersAlone()), "its row ran out");
        other.close();
    }

    @Test
    void anInstanceThatStopsCleanlyWhileAloneTakesItsRowAlong() throws Exception {
        JdbcGatewayInstances other = instance(Duration.ofSeconds(10));
        JdbcGatewayInstances stopping = aloneAsHeardBy(other, Duration.ofMinutes(5));
        stopping.close();
        other.refresh();
        assertFalse(other.othersAlone(), "at once, not after its five-minute lease");
        other.close();
    }
}
