package dev.tollgate.bootstrap.e2e;

import dev.tollgate.bootstrap.wiring.CoreFactory;
import dev.tollgate.domain.testing.MutableClock;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;

/** Test wiring: the gateway's clock starts at the real time and moves only when a test moves it. */
@Factory
public class TestClockFactory {

    @Singleton
    @Replaces(bean = Clock.class, factory = CoreFactory.class)
    MutableClock clock() {
        return new MutableClock(Instant.now());
    }
}
