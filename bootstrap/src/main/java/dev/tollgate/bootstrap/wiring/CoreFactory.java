package dev.tollgate.bootstrap.wiring;

import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.domain.shared.KeyHasher;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.security.SecureRandom;
import java.time.Clock;

/** Wiring: time, randomness and key hashing shared by every context. */
@Factory
public class CoreFactory {

    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    @Singleton
    KeyHasher keyHasher(@Value("${tollgate.key-pepper:}") String pepper) {
        return KeyHasher.hmacSha256(pepper);
    }

    @Singleton
    SecretIssuer secretIssuer(KeyHasher hasher) {
        return new SecretIssuer(new SecureRandom(), hasher);
    }
}
