package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.PasswordHasher;
import dev.tollgate.domain.account.Password;
import dev.tollgate.domain.account.PasswordHash;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test fake of {@link PasswordHasher}: a salted, reversible-free stand-in that is fast (the real Argon2id has its own
 * test), and counts how often it verified, so tests can prove every sign-in attempt verifies exactly once.
 */
public final class FastPasswordHasher implements PasswordHasher {

    private final AtomicInteger salt = new AtomicInteger();
    private final AtomicInteger verifications = new AtomicInteger();

    @Override
    public PasswordHash hash(Password password) {
        int s = salt.incrementAndGet();
        return new PasswordHash("$fake$" + s + "$" + Integer.toHexString((s + ":" + password.reveal()).hashCode()));
    }

    @Override
    public boolean matches(Password password, PasswordHash stored) {
        verifications.incrementAndGet();
        String[] parts = stored.encoded().split("\\$");
        return parts.length == 4 && parts[1].equals("fake")
                && parts[3].equals(Integer.toHexString((parts[2] + ":" + password.reveal()).hashCode()));
    }

    public int verifications() {
        return verifications.get();
    }
}
