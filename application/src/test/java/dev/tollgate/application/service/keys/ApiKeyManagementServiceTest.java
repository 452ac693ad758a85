package dev.tollgate.application.service.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.auth.ReadOnlyManagementKeyException;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.CreatedApiKey;
import dev.tollgate.application.port.in.keys.ListApiKeysQuery;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.testing.ForwardingApiKeyRepository;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.application.testing.SecretScan;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.apikey.ApiKeyState;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import dev.tollgate.domain.testing.MutableClock;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ApiKeyManagementServiceTest {

    private static final Instant START = Instant.parse("2026-03-04T12:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final KeyHasher hasher = KeyHasher.hmacSha256("service-test-pepper");
    private PersistenceStores stores;
    private RecordingApiKeyRepository apiKeys;
    private ApiKeyManagementService service;
    private ManagementPrincipal owner;
    private ManagementPrincipal ownerReadOnly;
    private ManagementPrincipal stranger;

    /** Keeps every key handed to the store, so a test can inspect exactly what was written. */
    private static final class RecordingApiKeyRepository extends ForwardingApiKeyRepository {
        private final List<ApiKey> written = new ArrayList<>();

        RecordingApiKeyRepository(ApiKeyRepository delegate) {
            super(delegate);
        }

        @Override
        public void insert(ApiKey key) {
            written.add(key);
            super.insert(key);
        }

        @Override
        public void update(ApiKey key) {
            written.add(key);
            super.update(key);
        }
    }

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        apiKeys = new RecordingApiKeyRepository(stores.apiKeys());
        service = new ApiKeyManagementService(apiKeys, stores.spend(), stores.transactions(),
                new SecretIssuer(new SplittableRandom(4242), hasher),
                new RecentApiKeys(apiKeys, clock, Duration.ofSeconds(2), 100), clock);
        Account account = stores.newAccount(START);
        owner = new ManagementPrincipal(account.id(), ManagementAccess.READ_WRITE);
        ownerReadOnly = new ManagementPrincipal(account.id(), ManagementAccess.READ_ONLY);
        stranger = new ManagementPrincipal(stores.newAccount(START).id(), ManagementAccess.READ_WRITE);
    }

    private static Usd usd(String dollars) {
        return Usd.ofDollars(new BigDecimal(dollars));
    }

    private CreatedApiKey create(String name) {
        return service.create(owner, new CreateApiKeyCommand(new KeyName(name), null, null, null));
    }

    private KeyHash createHash(ManagementPrincipal principal, String name) {
        return service.create(principal, new CreateApiKeyCommand(new KeyName(name), null, null, null))
                .details().key().hash();
    }

    private static List<String> names(List<ApiKeyDetails> page) {
        return page.stream().map(d -> d.key().name().value()).toList();
    }

    private ApiKey stored(KeyHash hash) {
        return stores.apiKeys().findByHash(hash).orElseThrow();
    }

    private static ApiKeyChanges disable(boolean disabled) {
        return new ApiKeyChanges(FieldChange.keep(), FieldChange.set(disabled), FieldChange.keep(),
                FieldChange.keep(), FieldChange.keep());
    }

    private static ApiKeyChanges rename(String name) {
        return new ApiKeyChanges(FieldChange.set(new KeyName(name)), FieldChange.keep(), FieldChange.keep(),
                FieldChange.keep(), FieldChange.keep());
    }

    private static void assertNotFound(Executable call) {
        ApiKeyNotFoundException e = assertThrows(ApiKeyNotFoundException.class, call);
        assertEquals("API key not found", e.getMessage());
        assertEquals("api_key_not_found", e.code());
    }

    @Nested
    class Create {

        @Test
        void returnsARawRegularKeyWhoseHashIsStored() {
            CreatedApiKey created = service.create(owner,
                    new CreateApiKeyCommand(new KeyName("prod"), usd("10"), LimitReset.DAILY, null));
            RawKey raw = created.rawKey();
            assertEquals(KeyKind.REGULAR, raw.kind());
            assertEquals(Optional.of(raw), RawKey.parse(raw.reveal(), KeyKind.REGULAR));

            KeyHash expectedHash = hasher.hash(raw);
            ApiKey returned = created.details().key();
            assertEquals(expectedHash, returned.hash());
            ApiKey stored = stored(expectedHash);
            assertEquals(returned.id(), stored.id());
            assertEquals(owner.accountId(), stored.accountId());
            assertEquals(raw.label(), stored.label());
            assertEquals(new KeyName("prod"), stored.name());
            assertEquals(Optional.of(new SpendLimit(usd("10"), LimitReset.DAILY)), stored.limit());
            assertEquals(START, stored.createdAt());
            assertEquals(START, stored.updatedAt());
            assertEquals(ApiKeyState.ENABLED, stored.state(START));
        }

        @Test
        void theRawKeyIsStoredNowhere() {
            List<RawKey> raws = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                raws.add(service.create(owner, new CreateApiKeyCommand(new KeyName("k" + i), usd("1"),
                        LimitReset.WEEKLY, START.plusSeconds(3600))).rawKey());
            }
            service.update(owner, hasher.hash(raws.get(0)), disable(true));
            service.delete(owner, hasher.hash(raws.get(1)));
            stores.spend().record(stored(hasher.hash(raws.get(2))).id(), usd("0.5"), START);

            assertEquals(7, apiKeys.written.size());
            for (RawKey raw : raws) {
                String secret = raw.reveal();
                // The part after prefix and first three characters is never shown anywhere.
                String hidden = secret.substring(6, secret.length() - 4);
                assertEquals(List.of(), SecretScan.find(stores, secret, hidden), "the whole store");
                assertEquals(List.of(), SecretScan.find(apiKeys.written, secret, hidden), "every write");
                assertNotEquals(KeyHasher.sha256().hash(raw), hasher.hash(raw), "hashed with the pepper");
            }
            // The scan does see what is stored: the masked label is.
            assertFalse(SecretScan.find(stores, raws.get(4).label()).isEmpty());
            assertFalse(SecretScan.find(stores, hasher.hash(raws.get(4)).hex()).isEmpty());
        }

        @Test
        void eachCreatedKeyIsDifferent() {
            CreatedApiKey a = create("a");
            CreatedApiKey b = create("a");
            assertNotEquals(a.rawKey(), b.rawKey());
            assertNotEquals(a.details().key().hash(), b.details().key().hash());
            assertEquals(2, service.list(owner, new ListApiKeysQuery(0, true)).size());
        }

        @Test
        void aNewKeyHasNoUsageAndItsWholeLimitRemaining() {
            CreatedApiKey created = service.create(owner,
                    new CreateApiKeyCommand(new KeyName("k"), usd("25"), null, null));
            assertEquals(KeyUsage.NONE, created.details().usage());
            assertEquals(Optional.of(usd("25")), created.details().limitRemaining());
            assertEquals(Optional.of(SpendLimit.lifetime(usd("25"))), created.details().key().limit());
            assertEquals(Optional.empty(), create("unlimited").details().limitRemaining());
        }

        @Test
        void aReadOnlyKeyCannotCreate() {
            ReadOnlyManagementKeyException e = assertThrows(ReadOnlyManagementKeyException.class,
                    () -> service.create(ownerReadOnly, new CreateApiKeyCommand(new KeyName("x"), null, null, null)));
            assertEquals("Management API key is read-only", e.getMessage());
            assertEquals(List.of(), apiKeys.written);
            assertEquals(List.of(), service.list(owner, new ListApiKeysQuery(0, true)));
        }

        @Test
        void domainRulesRefuseBeforeAnythingIsStored() {
            DomainRuleViolation noLimit = assertThrows(DomainRuleViolation.class, () -> service.create(owner,
                    new CreateApiKeyCommand(new KeyName("x"), null, LimitReset.DAILY, null)));
            assertEquals("limit_reset requires limit", noLimit.getMessage());
            assertThrows(DomainRuleViolation.class, () -> service.create(owner,
                    new CreateApiKeyCommand(new KeyName("x"), null, null, START)));
            assertThrows(DomainRuleViolation.class, () -> service.create(owner,
                    new CreateApiKeyCommand(new KeyName("x"), Usd.ZERO, null, null)));
            assertEquals(List.of(), apiKeys.written);
        }

        @Test
        void expiryIsCheckedAgainstTheClock() {
            clock.advance(Duration.ofDays(1));
            assertThrows(DomainRuleViolation.class, () -> service.create(owner,
                    new CreateApiKeyCommand(new KeyName("x"), null, null, START.plusSeconds(60))));
            ApiKey key = service.create(owner, new CreateApiKeyCommand(new KeyName("x"), null, null,
                    clock.instant().plusSeconds(60))).details().key();
            assertEquals(clock.instant(), key.createdAt());
        }
    }

    @Nested
    class Ownership {

        @Test
        void anotherAccountsKeyIsNotFoundForGetUpdateAndDelete() {
            KeyHash theirs = createHash(stranger, "theirs");
            ApiKey before = stored(theirs);

            assertNotFound(() -> service.get(owner, theirs));
            assertNotFound(() -> service.get(ownerReadOnly, theirs));
            assertNotFound(() -> service.update(owner, theirs, disable(true)));
            assertNotFound(() -> service.delete(owner, theirs));

            ApiKey after = stored(theirs);
            assertFalse(after.disabled());
            assertEquals(Optional.empty(), after.deletedAt());
            assertEquals(before.updatedAt(), after.updatedAt());
            assertEquals(theirs, service.get(stranger, theirs).key().hash(), "still there for its owner");
        }

        @Test
        void anotherAccountsKeysAreNotListed() {
            createHash(stranger, "theirs");
            createHash(owner, "mine");
            assertEquals(List.of("mine"), names(service.list(owner, new ListApiKeysQuery(0, true))));
            assertEquals(List.of("theirs"), names(service.list(stranger, new ListApiKeysQuery(0, true))));
        }

        @Test
        void anUnknownHashIsNotFound() {
            KeyHash unknown = new KeyHash("0".repeat(64));
            assertNotFound(() -> service.get(owner, unknown));
            assertNotFound(() -> service.update(owner, unknown, disable(true)));
            assertNotFound(() -> service.delete(owner, unknown));
        }

        @Test
        void aDeletedKeyIsNotFoundAnyMore() {
            KeyHash hash = createHash(owner, "doomed");
            service.delete(owner, hash);

            assertNotFound(() -> service.get(owner, hash));
            assertNotFound(() -> service.update(owner, hash, disable(false)));
            assertNotFound(() -> service.delete(owner, hash));
            assertEquals(List.of(), service.list(owner, new ListApiKeysQuery(0, true)));
            ApiKey kept = stored(hash);
            assertEquals(Optional.of(START), kept.deletedAt(), "kept in the store, marked deleted");
            assertEquals(ApiKeyState.DELETED, kept.state(START));
        }

        @Test
        void aReadOnlyKeyCannotUpdateOrDeleteButCanRead() {
            KeyHash hash = createHash(owner, "mine");
            ApiKey before = stored(hash);
            assertThrows(ReadOnlyManagementKeyException.class,
                    () -> service.update(ownerReadOnly, hash, disable(true)));
            assertThrows(ReadOnlyManagementKeyException.class, () -> service.delete(ownerReadOnly, hash));

            ApiKey after = stored(hash);
            assertFalse(after.disabled());
            assertEquals(Optional.empty(), after.deletedAt());
            assertEquals(before.updatedAt(), after.updatedAt());
            assertEquals(1, apiKeys.written.size(), "only the create was written");

            assertEquals(hash, service.get(ownerReadOnly, hash).key().hash());
            assertEquals(List.of("mine"), names(service.list(ownerReadOnly, new ListApiKeysQuery(0, false))));
        }

        @Test
        void aReadOnlyKeyIsRefusedEvenForAnotherAccountsHash() {
            // Write access is checked first, so a read-only key learns nothing about which hashes exist.
            KeyHash theirs = createHash(stranger, "theirs");
            assertThrows(ReadOnlyManagementKeyException.class,
                    () -> service.update(ownerReadOnly, theirs, disable(true)));
            assertThrows(ReadOnlyManagementKeyException.class, () -> service.delete(ownerReadOnly, theirs));
        }
    }

    @Nested
    class Update {

        @Test
        void changesArePersistedAndReturned() {
            KeyHash hash = createHash(owner, "before");
            clock.advance(Duration.ofSeconds(30));
            ApiKeyDetails updated = service.update(owner, hash, new ApiKeyChanges(FieldChange.set(new KeyName("after")),
                    FieldChange.set(true), FieldChange.set(usd("5")), FieldChange.set(LimitReset.MONTHLY),
                    FieldChange.set(clock.instant().plusSeconds(3600))));
            ApiKey returned = updated.key();
            assertEquals(new KeyName("after"), returned.name());
            assertTrue(returned.disabled());
            assertEquals(Optional.of(new SpendLimit(usd("5"), LimitReset.MONTHLY)), returned.limit());
            assertEquals(clock.instant(), returned.updatedAt());

            ApiKey reread = service.get(owner, hash).key();
            assertEquals(returned.name(), reread.name());
            assertEquals(returned.disabled(), reread.disabled());
            assertEquals(returned.limit(), reread.limit());
            assertEquals(returned.expiresAt(), reread.expiresAt());
            assertEquals(returned.updatedAt(), reread.updatedAt());
            assertEquals(START, reread.createdAt());
        }

        @Test
        void aRefusedChangeLeavesTheStoredKeyAlone() {
            KeyHash hash = service.create(owner, new CreateApiKeyCommand(new KeyName("k"), usd("10"),
                    LimitReset.DAILY, null)).details().key().hash();
            clock.advance(Duration.ofSeconds(1));
            ApiKeyChanges resetWithoutLimit = new ApiKeyChanges(FieldChange.set(new KeyName("renamed")),
                    FieldChange.keep(), FieldChange.clear(), FieldChange.set(LimitReset.WEEKLY), FieldChange.keep());
            DomainRuleViolation e = assertThrows(DomainRuleViolation.class,
                    () -> service.update(owner, hash, resetWithoutLimit));
            assertEquals("limit_reset requires limit", e.getMessage());

            ApiKey after = stored(hash);
            assertEquals(new KeyName("k"), after.name());
            assertEquals(Optional.of(new SpendLimit(usd("10"), LimitReset.DAILY)), after.limit());
            assertEquals(START, after.updatedAt());
            assertEquals(1, apiKeys.written.size());
        }

        @Test
        void updatedAtMovesForwardEvenWithinOneMillisecond() {
            KeyHash hash = createHash(owner, "k");
            Instant first = service.update(owner, hash, rename("a")).key().updatedAt();
            Instant second = service.update(owner, hash, rename("b")).key().updatedAt();
            assertEquals(START.plusMillis(1), first);
            assertEquals(START.plusMillis(2), second);
            assertEquals(second, stored(hash).updatedAt());
        }

        @Test
        void limitNullClearsLimitAndReset() {
            KeyHash hash = service.create(owner, new CreateApiKeyCommand(new KeyName("k"), usd("10"),
                    LimitReset.WEEKLY, null)).details().key().hash();
            ApiKeyDetails updated = service.update(owner, hash, new ApiKeyChanges(FieldChange.keep(),
                    FieldChange.keep(), FieldChange.clear(), FieldChange.keep(), FieldChange.keep()));
            assertEquals(Optional.empty(), updated.key().limit());
            assertEquals(Optional.empty(), updated.limitRemaining());
            assertEquals(Optional.empty(), stored(hash).limit());
        }
    }

    @Nested
    class ListKeys {

        private List<String> createNames(int count, Duration apart) {
            List<String> created = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                String name = "key-" + i;
                create(name);
                created.add(name);
                clock.advance(apart);
            }
            return created;
        }

        private List<String> newestFirst(List<String> names) {
            List<String> reversed = new ArrayList<>(names);
            java.util.Collections.reverse(reversed);
            return reversed;
        }

        @Test
        void newestFirst() {
            List<String> created = createNames(5, Duration.ofSeconds(1));
            assertEquals(newestFirst(created), names(service.list(owner, new ListApiKeysQuery(0, false))));
        }

        @Test
        void keysCreatedInTheSameMillisecondListLastCreatedFirst() {
            List<String> created = createNames(4, Duration.ZERO);
            assertEquals(newestFirst(created), names(service.list(owner, new ListApiKeysQuery(0, false))));
        }

        @Test
        void disabledKeysOnlyWhenAskedFor() {
            createNames(3, Duration.ofSeconds(1));
            KeyHash hash = service.list(owner, new ListApiKeysQuery(0, false)).get(1).key().hash();
            service.update(owner, hash, disable(true));

            assertEquals(List.of("key-3", "key-1"), names(service.list(owner, new ListApiKeysQuery(0, false))));
            assertEquals(List.of("key-3", "key-2", "key-1"),
                    names(service.list(owner, new ListApiKeysQuery(0, true))));

            service.update(owner, hash, disable(false));
            assertEquals(List.of("key-3", "key-2", "key-1"),
                    names(service.list(owner, new ListApiKeysQuery(0, false))));
        }

        @Test
        void offsetSkipsTheNewestKeys() {
            createNames(5, Duration.ofSeconds(1));
            assertEquals(List.of("key-3", "key-2", "key-1"),
                    names(service.list(owner, new ListApiKeysQuery(2, false))));
            assertEquals(List.of("key-1"), names(service.list(owner, new ListApiKeysQuery(4, false))));
            assertEquals(List.of(), service.list(owner, new ListApiKeysQuery(5, false)));
            assertEquals(List.of(), service.list(owner, new ListApiKeysQuery(ListApiKeysQuery.MAX_OFFSET, false)));
        }

        @Test
        void offsetCountsOnlyTheKeysThatAreListed() {
            createNames(4, Duration.ofSeconds(1));
            KeyHash newest = service.list(owner, new ListApiKeysQuery(0, false)).get(0).key().hash();
            service.update(owner, newest, disable(true));
            assertEquals(List.of("key-2", "key-1"), names(service.list(owner, new ListApiKeysQuery(1, false))));
            assertEquals(List.of("key-3", "key-2", "key-1"),
                    names(service.list(owner, new ListApiKeysQuery(1, true))));
        }

        @Test
        void offsetIsBetweenZeroAndTenThousand() {
            assertEquals("offset", assertThrows(DomainRuleViolation.class,
                    () -> new ListApiKeysQuery(-1, false)).field());
            assertThrows(DomainRuleViolation.class, () -> new ListApiKeysQuery(10_001, false));
            assertEquals(10_000, new ListApiKeysQuery(10_000, false).offset());
        }

        @Test
        void aPageHoldsAtMostOneHundredKeys() {
            List<String> created = createNames(105, Duration.ofMillis(1));
            List<String> expected = newestFirst(created);

            List<String> first = names(service.list(owner, new ListApiKeysQuery(0, false)));
            assertEquals(ListApiKeysQuery.PAGE_SIZE, first.size());
            assertEquals(expected.subList(0, 100), first);
            assertEquals("key-105", first.get(0));
            assertEquals("key-6", first.get(99));

            List<String> second = names(service.list(owner, new ListApiKeysQuery(100, false)));
            assertEquals(List.of("key-5", "key-4", "key-3", "key-2", "key-1"), second);

            assertEquals(expected.subList(3, 103), names(service.list(owner, new ListApiKeysQuery(3, false))));
        }
    }

    @Nested
    class Usage {

        private KeyHash hash;
        private ApiKey key;

        @BeforeEach
        void keyWithCharges() {
            clock.set(Instant.parse("2026-02-01T09:00:00Z"));
            hash = service.create(owner, new CreateApiKeyCommand(new KeyName("metered"), usd("10"),
                    LimitReset.DAILY, null)).details().key().hash();
            key = stored(hash);
            // 2026-03-04 is a Wednesday; its week starts Monday 2026-03-02, its month on Sunday 2026-03-01.
            charge("2026-02-27T10:00:00Z", "1");        // previous week, previous month
            charge("2026-03-01T10:00:00Z", "4");        // this month, previous week
            charge("2026-03-02T00:00:00Z", "2");        // this week from its first instant
            charge("2026-03-03T23:59:59.999Z", "0.5");  // yesterday
            charge("2026-03-04T00:00:00Z", "0.25");     // today from its first instant
            charge("2026-03-04T11:59:59.999Z", "0.125"); // today
            // Another key of the same account: never counted for this one.
            KeyHash other = createHash(owner, "other");
            stores.spend().record(stored(other).id(), usd("100"), Instant.parse("2026-03-04T11:00:00Z"));
            clock.set(START);
        }

        private void charge(String at, String dollars) {
            stores.spend().record(key.id(), usd(dollars), Instant.parse(at));
        }

        private ApiKeyDetails setLimit(String dollars, FieldChange<LimitReset> reset) {
            return service.update(owner, hash, new ApiKeyChanges(FieldChange.keep(), FieldChange.keep(),
                    FieldChange.set(usd(dollars)), reset, FieldChange.keep()));
        }

        @Test
        void usageIsSummedPerWindow() {
            ApiKeyDetails details = service.get(owner, hash);
            assertEquals(new KeyUsage(usd("7.875"), usd("0.375"), usd("2.875"), usd("6.875")), details.usage());
        }

        @Test
        void listAndGetReportTheSameUsage() {
            ApiKeyDetails viaGet = service.get(owner, hash);
            ApiKeyDetails viaList = service.list(owner, new ListApiKeysQuery(0, false)).stream()
                    .filter(d -> d.key().hash().equals(hash)).findFirst().orElseThrow();
            assertEquals(viaGet.usage(), viaList.usage());
            assertEquals(viaGet.limitRemaining(), viaList.limitRemaining());
            KeyUsage otherUsage = service.list(owner, new ListApiKeysQuery(0, false)).stream()
                    .filter(d -> !d.key().hash().equals(hash)).findFirst().orElseThrow().usage();
            assertEquals(usd("100"), otherUsage.total());
        }

        @Test
        void limitRemainingIsMeasuredInTheWindowOfTheResetPeriod() {
            assertEquals(Optional.of(usd("9.625")), service.get(owner, hash).limitRemaining());
            assertEquals(Optional.of(usd("7.125")),
                    setLimit("10", FieldChange.set(LimitReset.WEEKLY)).limitRemaining());
            assertEquals(Optional.of(usd("3.125")),
                    setLimit("10", FieldChange.set(LimitReset.MONTHLY)).limitRemaining());
            assertEquals(Optional.of(usd("2.125")), setLimit("10", FieldChange.keep()).limitRemaining(),
                    "lifetime");
            assertEquals(Optional.of(usd("2.125")), service.get(owner, hash).limitRemaining());
        }

        @Test
        void limitRemainingNeverGoesBelowZero() {
            assertEquals(Optional.of(Usd.ZERO), setLimit("5", FieldChange.keep()).limitRemaining());
            assertEquals(Optional.of(Usd.ZERO), setLimit("2.875", FieldChange.set(LimitReset.WEEKLY))
                    .limitRemaining());
            assertEquals(Optional.of(Usd.ofMicros(1)), setLimit("2.875001", FieldChange.set(LimitReset.WEEKLY))
                    .limitRemaining());
        }

        @Test
        void windowsResetAtUtcMidnightMondayAndTheFirstOfTheMonth() {
            clock.set(Instant.parse("2026-03-04T23:59:59.999Z"));
            assertEquals(usd("0.375"), service.get(owner, hash).usage().daily());

            clock.set(Instant.parse("2026-03-05T00:00:00Z"));
            ApiKeyDetails nextDay = service.get(owner, hash);
            assertEquals(new KeyUsage(usd("7.875"), Usd.ZERO, usd("2.875"), usd("6.875")), nextDay.usage());
            assertEquals(Optional.of(usd("10")), nextDay.limitRemaining());

            clock.set(Instant.parse("2026-03-09T00:00:00Z"));
            assertEquals(new KeyUsage(usd("7.875"), Usd.ZERO, Usd.ZERO, usd("6.875")),
                    service.get(owner, hash).usage());

            clock.set(Instant.parse("2026-04-01T00:00:00Z"));
            assertEquals(new KeyUsage(usd("7.875"), Usd.ZERO, Usd.ZERO, Usd.ZERO), service.get(owner, hash).usage());
        }

        @Test
        void aChargeRecordedNowShowsUpImmediately() {
            stores.spend().record(key.id(), usd("9.625"), clock.instant());
            ApiKeyDetails details = service.get(owner, hash);
            assertEquals(usd("10"), details.usage().daily());
            assertEquals(Optional.of(Usd.ZERO), details.limitRemaining());
        }

        @Test
        void theUpdateResultCarriesUsageToo() {
            ApiKeyDetails updated = service.update(owner, hash, rename("renamed"));
            assertEquals(usd("0.375"), updated.usage().daily());
            assertEquals(Optional.of(usd("9.625")), updated.limitRemaining());
        }
    }

    @Test
    void principalsForTheSameAccountSeeTheSameKeys() {
        List<String> created = IntStream.range(0, 3).mapToObj(i -> "k" + i).toList();
        created.forEach(this::create);
        assertEquals(names(service.list(owner, new ListApiKeysQuery(0, false))),
                names(service.list(ownerReadOnly, new ListApiKeysQuery(0, false))));
    }
}
