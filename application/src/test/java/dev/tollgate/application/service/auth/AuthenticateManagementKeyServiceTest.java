package dev.tollgate.application.service.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.auth.ReadOnlyManagementKeyException;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyId;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AuthenticateManagementKeyServiceTest {

    private static final Instant START = Instant.parse("2026-03-04T12:00:00Z");
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    private final MutableClock clock = new MutableClock(START);
    private final KeyHasher hasher = KeyHasher.hmacSha256("test-pepper");
    private final SplittableRandom random = new SplittableRandom(20260304);
    private PersistenceStores stores;
    private CountingManagementKeyRepository managementKeys;
    private CountingAccountRepository accounts;
    private AuthenticateManagementKeyService service;
    private Account account;
    private int keyNumber;

    /** Counts every call into the management-key store, to prove when it is not consulted. */
    private static final class CountingManagementKeyRepository implements ManagementKeyRepository {
        private final ManagementKeyRepository delegate;
        private int calls;

        CountingManagementKeyRepository(ManagementKeyRepository delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean insert(ManagementKey key) {
            calls++;
            return delegate.insert(key);
        }

        @Override
        public Optional<ManagementKey> findByHash(KeyHash hash) {
            calls++;
            return delegate.findByHash(hash);
        }

        @Override
        public Optional<ManagementKey> findByName(AccountId accountId, KeyName name) {
            calls++;
            return delegate.findByName(accountId, name);
        }

        @Override
        public long countActive(AccountId accountId, Instant now) {
            calls++;
            return delegate.countActive(accountId, now);
        }

        @Override
        public List<ManagementKey> listByAccount(AccountId accountId) {
            calls++;
            return delegate.listByAccount(accountId);
        }

        @Override
        public void update(ManagementKey key) {
            calls++;
            delegate.update(key);
        }

        @Override
        public Optional<ManagementKey> findById(ManagementKeyId id) {
            calls++;
            return delegate.findById(id);
        }

        @Override
        public boolean delete(ManagementKeyId id) {
            calls++;
            return delegate.delete(id);
        }

        @Override
        public void recordUse(ManagementKeyId id, Instant at) {
            calls++;
            delegate.recordUse(id, at);
        }
    }

    /** Counts every call into the account store. */
    private static final class CountingAccountRepository implements AccountRepository {
        private final AccountRepository delegate;
        private int calls;

        CountingAccountRepository(AccountRepository delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean insert(Account account) {
            calls++;
            return delegate.insert(account);
        }

        @Override
        public Optional<Account> findById(AccountId id) {
            calls++;
            return delegate.findById(id);
        }

        @Override
        public Optional<Account> findByEmail(Email email) {
            calls++;
            return delegate.findByEmail(email);
        }

        @Override
        public Optional<Account> lockById(AccountId id) {
            calls++;
            return delegate.lockById(id);
        }

        @Override
        public boolean markEmailVerified(AccountId id, Instant now) {
            calls++;
            return delegate.markEmailVerified(id, now);
        }

        @Override
        public Optional<Usd> credit(AccountId id, Usd amount, Instant now) {
            calls++;
            return delegate.credit(id, amount, now);
        }
    }

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        managementKeys = new CountingManagementKeyRepository(stores.managementKeys());
        accounts = new CountingAccountRepository(stores.accounts());
        service = new AuthenticateManagementKeyService(managementKeys, accounts, hasher,
                new ManagementKeyUsage(stores.managementKeys(), Runnable::run), clock);
        account = stores.newAccount(START);
    }

    private RawKey storeKey(Account owner, ManagementAccess access, Instant expiresAt, KeyHasher keyHasher) {
        RawKey raw = RawKey.generate(KeyKind.MANAGEMENT, random);
        ManagementKey key = ManagementKey.issue(owner.id(), new KeyName("key-" + keyNumber++), access,
                keyHasher.hash(raw), raw.label(), expiresAt, clock.instant());
        assertTrue(stores.managementKeys().insert(key));
        return raw;
    }

    private RawKey storeKey(ManagementAccess access) {
        return storeKey(account, access, null, hasher);
    }

    private void assertInvalid(String bearer) {
        InvalidManagementKeyException e = assertThrows(InvalidManagementKeyException.class,
                () -> service.authenticate(bearer), () -> "accepted " + bearer);
        assertEquals("invalid_management_key", e.code());
    }

    private void resetCounters() {
        managementKeys.calls = 0;
        accounts.calls = 0;
    }

    @Test
    void anActiveReadWriteKeyAuthenticatesForItsAccount() {
        RawKey raw = storeKey(ManagementAccess.READ_WRITE);
        ManagementPrincipal principal = service.authenticate(raw.reveal());
        assertEquals(new ManagementPrincipal(account.id(), ManagementAccess.READ_WRITE), principal);
        principal.requireWriteAccess();
    }

    @Test
    void aReadOnlyKeyAuthenticatesWithReadOnlyAccessThatRefusesWrites() {
        RawKey raw = storeKey(ManagementAccess.READ_ONLY);
        ManagementPrincipal principal = service.authenticate(raw.reveal());
        assertEquals(account.id(), principal.accountId());
        assertEquals(ManagementAccess.READ_ONLY, principal.access());
        ReadOnlyManagementKeyException e = assertThrows(ReadOnlyManagementKeyException.class,
                principal::requireWriteAccess);
        assertEquals("Management API key is read-only", e.getMessage());
        assertEquals("management_key_read_only", e.code());
    }

    @Test
    void eachKeyAuthenticatesForItsOwnAccount() {
        Account other = stores.newAccount(START);
        RawKey mine = storeKey(ManagementAccess.READ_WRITE);
        RawKey theirs = storeKey(other, ManagementAccess.READ_ONLY, null, hasher);
        assertEquals(account.id(), service.authenticate(mine.reveal()).accountId());
        assertEquals(other.id(), service.authenticate(theirs.reveal()).accountId());
        assertEquals(ManagementAccess.READ_ONLY, service.authenticate(theirs.reveal()).access());
    }

    static Stream<String> malformedCredentials() {
        return Stream.of(
                "",
                " ",
                "garbage",
                "gpm-",
                "gp-",
                "Bearer gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV",
                // Regular key with a valid checksum: the wrong type for /api/v1/keys (§5.2).
                "gp-0123456789abcdefghijABCDEFGHIJkl1p3v7W",
                // Well-formed management key with its last checksum character changed.
                "gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UW",
                // Right length but a character outside base62.
                "gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA98765-3iV9UV",
                " gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV",
                "gpm-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV\n",
                "GPM-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543iV9UV",
                "gpm-" + "A".repeat(10_000),
                "' OR 1=1 --");
    }

    @ParameterizedTest
    @MethodSource("malformedCredentials")
    void aMalformedCredentialIsRefusedWithoutAnyStoreLookup(String bearer) {
        resetCounters();
        assertInvalid(bearer);
        assertEquals(0, managementKeys.calls, "management-key store lookups");
        assertEquals(0, accounts.calls, "account store lookups");
    }

    @Test
    void aMissingCredentialIsRefusedWithoutAnyStoreLookup() {
        resetCounters();
        assertInvalid(null);
        assertEquals(0, managementKeys.calls);
        assertEquals(0, accounts.calls);
    }

    @Test
    void everySingleCharacterMutationOfAStoredKeyIsRefusedWithoutAnyStoreLookup() {
        RawKey raw = storeKey(ManagementAccess.READ_WRITE);
        char[] original = raw.reveal().toCharArray();
        resetCounters();
        for (int position = 0; position < original.length; position++) {
            char[] mutated = original.clone();
            int index = BASE62.indexOf(original[position]);
            mutated[position] = BASE62.charAt(index < 0 ? 0 : (index + 1) % BASE62.length());
            assertInvalid(new String(mutated));
        }
        assertEquals(0, managementKeys.calls, "a checksum failure must not reach the store");
        assertEquals(0, accounts.calls);
        assertEquals(account.id(), service.authenticate(raw.reveal()).accountId(), "the original still works");
    }

    @Test
    void aWellFormedButUnknownKeyIsLookedUpOnceAndRefused() {
        storeKey(ManagementAccess.READ_WRITE);
        RawKey unknown = RawKey.generate(KeyKind.MANAGEMENT, random);
        resetCounters();
        assertInvalid(unknown.reveal());
        assertEquals(1, managementKeys.calls);
        assertEquals(0, accounts.calls);
    }

    @Test
    void aDisabledKeyIsRefused() {
        RawKey raw = storeKey(ManagementAccess.READ_WRITE);
        ManagementKey key = stores.managementKeys().findByHash(hasher.hash(raw)).orElseThrow();
        key.disable(clock.instant());
        stores.managementKeys().update(key);
        assertInvalid(raw.reveal());

        key.enable(clock.instant());
        stores.managementKeys().update(key);
        assertEquals(account.id(), service.authenticate(raw.reveal()).accountId(), "enabled again");
    }

    @Test
    void aKeyIsRefusedFromTheInstantItExpires() {
        Instant expiry = START.plusSeconds(3600);
        RawKey raw = storeKey(account, ManagementAccess.READ_WRITE, expiry, hasher);
        clock.set(expiry.minusMillis(1));
        assertEquals(account.id(), service.authenticate(raw.reveal()).accountId());
        clock.set(expiry);
        assertInvalid(raw.reveal());
        clock.set(expiry.plusSeconds(86_400));
        assertInvalid(raw.reveal());
    }

    @Test
    void aKeyHashedWithAnotherPepperIsUnknown() {
        RawKey raw = storeKey(account, ManagementAccess.READ_WRITE, null, KeyHasher.hmacSha256("old-pepper"));
        assertInvalid(raw.reveal());
        RawKey plain = storeKey(account, ManagementAccess.READ_WRITE, null, KeyHasher.sha256());
        assertInvalid(plain.reveal());
    }

    @Test
    void aKeyWhoseAccountIsGoneIsRefused() {
        Account ghost = Account.open(new Email("ghost@example.test"), true, START);
        RawKey raw = storeKey(ghost, ManagementAccess.READ_WRITE, null, hasher);
        assertInvalid(raw.reveal());
    }

    @Test
    void anUnverifiedAccountIsRefusedWithTheVerificationMessage() {
        Account unverified = Account.open(new Email("new-" + UUID.randomUUID() + "@example.test"), false, START);
        assertTrue(stores.accounts().insert(unverified));
        RawKey raw = storeKey(unverified, ManagementAccess.READ_WRITE, null, hasher);
        EmailNotVerifiedException e = assertThrows(EmailNotVerifiedException.class,
                () -> service.authenticate(raw.reveal()));
        assertEquals("Please verify your email address to access this feature", e.getMessage());
        assertEquals("email_not_verified", e.code());

        stores.accounts().markEmailVerified(unverified.id(), START);
        assertEquals(unverified.id(), service.authenticate(raw.reveal()).accountId());
    }

    @Test
    void anInvalidKeyOfAnUnverifiedAccountIsStillUnauthorizedNotForbidden() {
        Account unverified = Account.open(new Email("new-" + UUID.randomUUID() + "@example.test"), false, START);
        assertTrue(stores.accounts().insert(unverified));
        RawKey raw = storeKey(unverified, ManagementAccess.READ_WRITE, START.plusSeconds(1), hasher);
        clock.set(START.plusSeconds(1));
        assertInvalid(raw.reveal());
    }

    @Test
    void everyCauseOfRefusalLooksTheSame() {
        RawKey disabled = storeKey(ManagementAccess.READ_WRITE);
        ManagementKey key = stores.managementKeys().findByHash(hasher.hash(disabled)).orElseThrow();
        key.disable(clock.instant());
        stores.managementKeys().update(key);
        List<String> candidates = List.of("garbage", RawKey.generate(KeyKind.MANAGEMENT, random).reveal(),
                disabled.reveal(), RawKey.generate(KeyKind.REGULAR, random).reveal());
        String message = null;
        for (String candidate : candidates) {
            InvalidManagementKeyException e = assertThrows(InvalidManagementKeyException.class,
                    () -> service.authenticate(candidate));
            if (message == null) {
                message = e.getMessage();
            }
            assertEquals(message, e.getMessage());
            assertTrue(!e.getMessage().contains(candidate), "the message does not echo the credential");
        }
    }
}
