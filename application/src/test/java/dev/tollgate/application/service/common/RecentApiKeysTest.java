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
        ApiKey key = ApiKey.issue(AccountId.newId(), new KeyHash(hashDigit.repeat(64)), "gp-...wxyz",
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
    void anUnknownKeyIsRememberedAsUnknownForTheTtlLikeARefusedOne() {
        // G12: a disabled key and one that never existed are both answered from memory on a repeat, so their
        // timing does not tell them apart; a client repeating a made-up key costs one lookup per TTL.
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 10);
        KeyHash unknown = new KeyHash("e".repeat(64));
        assertTrue(recent.find(unknown).isEmpty());
        assertTrue(recent.find(unknown).isEmpty());
        assertEquals(1, reads.get());
        clock.advance(Duration.ofSeconds(2));
        assertTrue(recent.find(unknown).isEmpty());
        assertEquals(2, reads.get(), "remembered for less than the TTL, never longer");

        // A key stored under a hash remembered as unknown (only possible in a test: 190 random bits) is found once
        // forgotten, as every key change forgets the hash, or once the TTL ran out.
        KeyHash later = new KeyHash("9".repeat(64));
        assertTrue(recent.find(later).isEmpty());
        ApiKey created = ApiKey.issue(AccountId.newId(), later, "gp-...wxyz", new KeyName("k"), null, null, null,
                START);
        store.insert(created);
        recent.forget(later);
        assertEquals(created.id(), recent.find(later).orElseThrow().id());
    }

    @Test
    void theSizeIsBoundedAndMadeUpKeysCannotCrowdOutRealOnes() {
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 20);
        ApiKey real = stored("7", null);
        recent.find(real.hash());
        for (int i = 0; i < 100; i++) {
            recent.find(new KeyHash(String.format("%064x", 1_000 + i))); // made up: at most 2 remembered
        }
        reads.set(0);
        recent.find(real.hash());
        assertEquals(0, reads.get(), "the real key's entry survived the made-up ones");

        RecentApiKeys small = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 2);
        ApiKey one = stored("1", null);
        ApiKey two = stored("2", null);
        ApiKey three = stored("3", null);
        small.find(one.hash());
        small.find(two.hash());
        small.find(three.hash()); // full: the cache starts over rather than grow
        reads.set(0);
        small.find(three.hash());
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
        assertThrows(IllegalArgumentException.class, () -> new RecentApiKeys(store, clock, Duration.ofSeconds(1), -1));
    }

    /** operations.md: a key-cache size of 0 is no cache (an audit, 2026-11-29: it stopped the start-up). */
    @Test
    void aSizeOfZeroIsNoCache() {
        ApiKey key = stored("e", null);
        RecentApiKeys recent = new RecentApiKeys(store, clock, Duration.ofSeconds(2), 0);
        recent.find(key.hash());
        recent.find(key.hash());
        assertEquals(2, reads.get());
    }
}
