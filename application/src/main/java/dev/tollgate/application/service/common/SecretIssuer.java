package dev.tollgate.application.service.common;

import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import java.util.Objects;
import java.util.random.RandomGenerator;

/** Draws new raw keys and hashes them; the raw key leaves only through the create result. */
public final class SecretIssuer {

    private final RandomGenerator random;
    private final KeyHasher hasher;

    public SecretIssuer(RandomGenerator random, KeyHasher hasher) {
        this.random = Objects.requireNonNull(random);
        this.hasher = Objects.requireNonNull(hasher);
    }

    public RawKey draw(KeyKind kind) {
        return RawKey.generate(kind, random);
    }

    public KeyHasher hasher() {
        return hasher;
    }
}
