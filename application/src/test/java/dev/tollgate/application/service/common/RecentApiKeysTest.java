package dev.tollgate.application.service.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.testing.ForwardingApiKeyRepository;
import dev.tollgate.application.testing.InMemoryApiKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.apikey.ApiKeyState;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RecentApiKeysTest {

    private static final Instant START = Instant.parse("2026-05-01T10:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final AtomicInteger reads = new AtomicInteger();
    private final InMemoryApiKeyRepository keys = new InMemoryApiKeyRepository();
    private final ApiKeyRepository store = new ForwardingApiKeyRepository(keys) {
        @Override
        public Optional<ApiKey> findByHash(KeyHash hash) {
            reads.incrementAndGet();
            return super.findByHash(hash);
        }
    };

    private ApiKey stored(String hashDigit, Instant expiresAt) {
        ApiKey key = ApiKey.issue(AccountId.newId(), new KeyHash(hashDigit.repeat(64)), "gp-abc...wxyz",
                new KeyName("k"), null, null, expiresAt, START);
        store.insert(key);
        return key;
    }

    private void disable(ApiKey key) {
        ApiKey copy = keys.findByHash(key.hash()).orElseThrow();
        copy.update(new ApiKeyChanges(FieldChange.keep(), FieldChange.set(true), FieldChange.keep(),
                FieldChange.keep(), FieldChange.keep()), clock.instant());
        store.update(copy);
    }

    @Test
    void aKeyIsReadFromTheStoreOncePerTtl() {
        ApiKey key = stored("a", null);
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 10);

        recent.find(key.hash());
        recent.find(key.hash());
        clock.advance(Duration.ofMillis(1999));
        recent.find(key.hash());
        assertEquals(1, reads.get());

        clock.advance(Duration.ofMillis(1));
        recent.find(key.hash());
        assertEquals(2, reads.get(), "an entry is used for less than the TTL, never longer");
    }

    @Test
    void aChangeMadeElsewhereIsSeenOnceTheTtlRanOutAndAtOnceWhenForgotten() {
        ApiKey key = stored("b", null);
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 10);
        assertFalse(recent.find(key.hash()).orElseThrow().disabled());

        disable(key);
        assertFalse(recent.find(key.hash()).orElseThrow().disabled(), "within the TTL the entry still answers");
        clock.advance(Duration.ofSeconds(2));
        assertTrue(recent.find(key.hash()).orElseThrow().disabled());

        RecentApiKeys other = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 10);
        ApiKey second = stored("c", null);
        other.find(second.hash());
        disable(second);
        other.forget(second.hash());
        assertTrue(other.find(second.hash()).orElseThrow().disabled());
    }

    @Test
    void expiryIsExactBecauseTheStateIsComputedOnEveryRequest() {
        ApiKey key = stored("d", START.plusSeconds(1));
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofMinutes(5), 10);
        assertEquals(ApiKeyState.ENABLED, recent.find(key.hash()).orElseThrow().state(clock.instant()));
        clock.advance(Duration.ofSeconds(1));
        assertEquals(ApiKeyState.EXPIRED, recent.find(key.hash()).orElseThrow().state(clock.instant()));
    }

    @Test
    void unknownKeysAreNotKeptAndTheSizeIsBounded() {
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 2);
        KeyHash unknown = new KeyHash("e".repeat(64));
        assertTrue(recent.find(unknown).isEmpty());
        assertTrue(recent.find(unknown).isEmpty());
        assertEquals(2, reads.get());

        ApiKey one = stored("1", null);
        ApiKey two = stored("2", null);
        ApiKey three = stored("3", null);
        recent.find(one.hash());
        recent.find(two.hash());
        recent.find(three.hash()); // full: the cache starts over rather than grow
        reads.set(0);
        recent.find(three.hash());
        assertEquals(0, reads.get());
    }

    @Test
    void aZeroTtlReadsTheStoreEveryTimeAndBadSettingsAreRefused() {
        ApiKey key = stored("f", null);
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ZERO, 10);
        recent.find(key.hash());
        recent.find(key.hash());
        assertEquals(2, reads.get());
        assertThrows(IllegalArgumentException.class, () -> new RecentApiKeys(store, clock, Duration.ofSeconds(-1), 1));
        assertThrows(IllegalArgumentException.class, () -> new RecentApiKeys(store, clock, Duration.ofSeconds(1), 0));
    }
}
