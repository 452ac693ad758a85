package dev.tollgate.application.service.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.application.testing.InMemoryManagementKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class ManagementKeyUsageTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

    /** Counts writes and runs them only when told: the request's path never waits for one. */
    private static final class Deferred implements Executor {
        final List<Runnable> queued = new ArrayList<>();

        @Override
        public void execute(Runnable command) {
            queued.add(command);
        }

        void runAll() {
            queued.forEach(Runnable::run);
            queued.clear();
        }
    }

    private final InMemoryManagementKeyRepository keys = new InMemoryManagementKeyRepository() {
        @Override
        public synchronized void recordUse(ManagementKeyId id, Instant at) {
            writes++;
            super.recordUse(id, at);
        }
    };
    private int writes;

    private ManagementKey key() {
        RawKey raw = RawKey.generate(KeyKind.MANAGEMENT, new SplittableRandom(1));
        ManagementKey key = ManagementKey.issue(new AccountId(java.util.UUID.randomUUID()), new KeyName("k"),
                ManagementAccess.READ_WRITE, KeyHasher.sha256().hash(raw), raw.label(), null, NOW);
        keys.insert(key);
        return key;
    }

    @Test
    void aBurstOfUsesWritesOnceAndOffThePath() {
        Deferred executor = new Deferred();
        ManagementKeyUsage usage = new ManagementKeyUsage(keys, executor);
        ManagementKey key = key();
        for (int i = 0; i < 100; i++) {
            usage.used(key, NOW.plusMillis(i * 100L));
        }
        assertEquals(0, writes, "nothing written on the request's thread");
        assertEquals(1, executor.queued.size());
        executor.runAll();
        assertEquals(1, writes);
        usage.used(keys.findById(key.id()).orElseThrow(), NOW.plusSeconds(61));
        executor.runAll();
        assertEquals(2, writes);
    }

    @Test
    void aFailedWriteIsTriedAgainOnTheNextUse() {
        ManagementKey key = key();
        ManagementKeyUsage failing = new ManagementKeyUsage(new InMemoryManagementKeyRepository() {
            @Override
            public void recordUse(ManagementKeyId id, Instant at) {
                writes++;
                throw new IllegalStateException("database down");
            }
        }, Runnable::run);
        failing.used(key, NOW);
        failing.used(key, NOW.plusSeconds(1));
        assertEquals(2, writes);
    }
}
