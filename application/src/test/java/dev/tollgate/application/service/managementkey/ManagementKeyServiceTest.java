package dev.tollgate.application.service.managementkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.in.account.AccountNotFoundException;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreatedManagementKey;
import dev.tollgate.application.port.in.managementkey.ManagementKeyLimitReachedException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNameTakenException;
import dev.tollgate.application.port.in.managementkey.ManagementKeyNotFoundException;
import dev.tollgate.application.service.auth.AuthenticateManagementKeyService;
import dev.tollgate.application.service.auth.ManagementKeyUsage;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.application.testing.PersistenceStores;
import dev.tollgate.application.testing.SecretScan;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyPolicy;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ManagementKeyServiceTest {

    private static final Instant START = Instant.parse("2026-03-04T12:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final KeyHasher hasher = KeyHasher.hmacSha256("mk-pepper");
    private PersistenceStores stores;
    private ManagementKeyService service;
    private AuthenticateManagementKeyService authentication;
    private Account account;

    @BeforeEach
    void setUp() {
        stores = PersistenceStores.inMemory();
        service = new ManagementKeyService(stores.accounts(), stores.managementKeys(), stores.transactions(),
                new SecretIssuer(new SplittableRandom(77), hasher), clock);
        authentication = new AuthenticateManagementKeyService(stores.managementKeys(), stores.accounts(), hasher,
                new ManagementKeyUsage(stores.managementKeys(), Runnable::run), clock);
        account = stores.newAccount(START);
    }

    private CreatedManagementKey create(Account owner, String name, ManagementAccess access, Instant expiresAt) {
        return service.create(new CreateManagementKeyCommand(owner.email(), new KeyName(name), access, expiresAt));
    }

    private CreatedManagementKey create(String name) {
        return create(account, name, ManagementAccess.READ_WRITE, null);
    }

    private void fillUp(Account owner, int count) {
        for (int i = 0; i < count; i++) {
            create(owner, "filler-" + i, ManagementAccess.READ_ONLY, null);
        }
    }

    private int stored(Account owner) {
        return stores.managementKeys().listByAccount(owner.id()).size();
    }

    private Account unverifiedAccount(String email) {
        Account unverified = Account.open(new Email(email), false, START);
        assertTrue(stores.accounts().insert(unverified));
        return unverified;
    }

    @Test
    void createReturnsARawManagementKeyWhoseHashIsStored() {
        CreatedManagementKey created = create(account, "ops", ManagementAccess.READ_ONLY, START.plusSeconds(600));
        RawKey raw = created.rawKey();
        assertEquals(KeyKind.MANAGEMENT, raw.kind());
        assertEquals(Optional.of(raw), RawKey.parse(raw.reveal(), KeyKind.MANAGEMENT));

        ManagementKey stored = stores.managementKeys().findByHash(hasher.hash(raw)).orElseThrow();
        assertEquals(created.key().id(), stored.id());
        assertEquals(account.id(), stored.accountId());
        assertEquals(new KeyName("ops"), stored.name());
        assertEquals(ManagementAccess.READ_ONLY, stored.access());
        assertEquals(raw.label(), stored.label());
        assertEquals(Optional.of(START.plusSeconds(600)), stored.expiresAt());
        assertEquals(START, stored.createdAt());
        assertEquals(ManagementKeyState.ACTIVE, stored.state(START));

        String secret = raw.reveal();
        assertEquals(List.of(), SecretScan.find(stores, secret, secret.substring(7, secret.length() - 4)));
    }

    @Test
    void aCreatedKeyAuthenticatesWithItsAccess() {
        RawKey readWrite = create(account, "rw", ManagementAccess.READ_WRITE, null).rawKey();
        RawKey readOnly = create(account, "ro", ManagementAccess.READ_ONLY, null).rawKey();
        assertEquals(new ManagementPrincipal(account.id(), ManagementAccess.READ_WRITE),
                authentication.authenticate(readWrite.reveal()));
        assertEquals(new ManagementPrincipal(account.id(), ManagementAccess.READ_ONLY),
                authentication.authenticate(readOnly.reveal()));
    }

    @Test
    void anUnverifiedAccountCannotCreateKeys() {
        Account unverified = unverifiedAccount("fresh@example.com");
        EmailNotVerifiedException e = assertThrows(EmailNotVerifiedException.class,
                () -> create(unverified, "ops", ManagementAccess.READ_WRITE, null));
        assertEquals("email_not_verified", e.code());
        assertEquals(0, stored(unverified));

        stores.accounts().markEmailVerified(unverified.id(), START);
        create(unverified, "ops", ManagementAccess.READ_WRITE, null);
        assertEquals(1, stored(unverified));
    }

    @Test
    void anUnknownAccountIsNotFound() {
        assertThrows(AccountNotFoundException.class, () -> service.create(new CreateManagementKeyCommand(
                new Email("nobody@example.com"), new KeyName("ops"), ManagementAccess.READ_WRITE, null)));
        assertThrows(AccountNotFoundException.class,
                () -> service.disable(new Email("nobody@example.com"), new KeyName("ops")));
    }

    @Test
    void twentyFiveActiveKeysAtMost() {
        fillUp(account, ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT);
        assertEquals(25, stores.managementKeys().countActive(account.id(), START));

        ManagementKeyLimitReachedException e = assertThrows(ManagementKeyLimitReachedException.class,
                () -> create("one-too-many"));
        assertEquals("management_key_limit_reached", e.code());
        assertEquals(25, stored(account));
        assertEquals(Optional.empty(), stores.managementKeys().findByName(account.id(), new KeyName("one-too-many")));
    }

    @Test
    void aDisabledKeyFreesASlot() {
        fillUp(account, 25);
        service.disable(account.email(), new KeyName("filler-3"));
        create("replacement");
        assertEquals(26, stored(account));
        assertEquals(25, stores.managementKeys().countActive(account.id(), START));
        assertThrows(ManagementKeyLimitReachedException.class, () -> create("and-another"));
    }

    @Test
    void anExpiredKeyFreesASlotFromTheInstantItExpires() {
        Instant expiry = START.plusSeconds(3600);
        create(account, "temporary", ManagementAccess.READ_WRITE, expiry);
        fillUp(account, 24);
        assertThrows(ManagementKeyLimitReachedException.class, () -> create("late"));

        clock.set(expiry.minusMillis(1));
        assertThrows(ManagementKeyLimitReachedException.class, () -> create("late"));

        clock.set(expiry);
        CreatedManagementKey late = create("late");
        assertEquals(expiry, late.key().createdAt());
        assertThrows(ManagementKeyLimitReachedException.class, () -> create("later"));
    }

    @Test
    void anotherAccountsKeysDoNotCount() {
        Account other = stores.newAccount(START);
        fillUp(other, 25);
        create("mine");
        assertEquals(1, stored(account));
        assertThrows(ManagementKeyLimitReachedException.class,
                () -> create(other, "extra", ManagementAccess.READ_WRITE, null));
    }

    @Test
    void namesAreUniqueWithinAnAccount() {
        create("ops");
        ManagementKeyNameTakenException e = assertThrows(ManagementKeyNameTakenException.class,
                () -> create(account, " ops ", ManagementAccess.READ_ONLY, null));
        assertEquals("management_key_name_taken", e.code());
        assertEquals(1, stored(account));
        assertEquals(ManagementAccess.READ_WRITE,
                stores.managementKeys().findByName(account.id(), new KeyName("ops")).orElseThrow().access());
    }

    @Test
    void aDisabledKeysNameStaysTaken() {
        create("ops");
        service.disable(account.email(), new KeyName("ops"));
        assertThrows(ManagementKeyNameTakenException.class, () -> create("ops"));
    }

    @Test
    void anotherAccountMayUseTheSameName() {
        Account other = stores.newAccount(START);
        create("ops");
        create(other, "ops", ManagementAccess.READ_WRITE, null);
        assertEquals(1, stored(other));
    }

    @Test
    void disableByNameStopsThatKeyOnly() {
        RawKey ops = create("ops").rawKey();
        RawKey ci = create("ci").rawKey();
        clock.advance(Duration.ofMinutes(5));
        service.disable(account.email(), new KeyName("ops"));

        ManagementKey disabled = stores.managementKeys().findByName(account.id(), new KeyName("ops")).orElseThrow();
        assertEquals(ManagementKeyState.DISABLED, disabled.state(clock.instant()));
        assertEquals(clock.instant(), disabled.updatedAt());
        assertThrows(InvalidManagementKeyException.class, () -> authentication.authenticate(ops.reveal()));
        assertEquals(account.id(), authentication.authenticate(ci.reveal()).accountId());
    }

    @Test
    void disablingAnUnknownNameIsNotFound() {
        create("ops");
        ManagementKeyNotFoundException e = assertThrows(ManagementKeyNotFoundException.class,
                () -> service.disable(account.email(), new KeyName("nope")));
        assertEquals("management_key_not_found", e.code());
    }

    @Test
    void anotherAccountsKeyCannotBeDisabledByName() {
        Account other = stores.newAccount(START);
        RawKey theirs = create(other, "shared-name", ManagementAccess.READ_WRITE, null).rawKey();
        assertThrows(ManagementKeyNotFoundException.class,
                () -> service.disable(account.email(), new KeyName("shared-name")));
        assertEquals(other.id(), authentication.authenticate(theirs.reveal()).accountId());
    }

    @Test
    void anExpiryInThePastIsRefused() {
        assertThrows(DomainRuleViolation.class, () -> create(account, "old", ManagementAccess.READ_WRITE, START));
        assertEquals(0, stored(account));
    }

    @Test
    void disableEnableAndDeleteById() {
        CreatedManagementKey created = create("by-id");
        ManagementKey key = created.key();
        service.disable(account.id(), key.id());
        assertThrows(InvalidManagementKeyException.class, () -> authentication.authenticate(created.rawKey().reveal()));
        assertEquals(ManagementKeyState.DISABLED, service.list(account.id()).keys().get(0).state());
        service.enable(account.id(), key.id());
        assertEquals(account.id(), authentication.authenticate(created.rawKey().reveal()).accountId());
        service.delete(account.id(), key.id());
        assertThrows(InvalidManagementKeyException.class, () -> authentication.authenticate(created.rawKey().reveal()));
        assertEquals(0, stored(account));
        assertThrows(ManagementKeyNotFoundException.class, () -> service.enable(account.id(), key.id()));
    }

    @Test
    void anotherAccountsKeyIsNotFoundByIdAndStaysAsItWas() {
        Account other = stores.newAccount(START);
        CreatedManagementKey theirs = create(other, "theirs", ManagementAccess.READ_WRITE, null);
        assertThrows(ManagementKeyNotFoundException.class, () -> service.disable(account.id(), theirs.key().id()));
        assertThrows(ManagementKeyNotFoundException.class, () -> service.delete(account.id(), theirs.key().id()));
        assertThrows(ManagementKeyNotFoundException.class, () -> service.enable(account.id(), theirs.key().id()));
        assertEquals(other.id(), authentication.authenticate(theirs.rawKey().reveal()).accountId());
        assertEquals(List.of(), service.list(account.id()).keys());
        assertEquals(1, service.list(other.id()).keys().size());
    }

    @Test
    void enablingIsRefusedWhenItWouldMakeATwentySixthActiveKey() {
        CreatedManagementKey spare = create("spare");
        service.disable(account.id(), spare.key().id());
        fillUp(account, ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT);
        assertEquals(false, service.list(account.id()).roomForAnother());
        assertThrows(ManagementKeyLimitReachedException.class, () -> service.enable(account.id(), spare.key().id()));
        assertEquals(ManagementKeyState.DISABLED,
                stores.managementKeys().findById(spare.key().id()).orElseThrow().state(START));
        service.delete(account.id(), stores.managementKeys().findByName(account.id(), new KeyName("filler-0"))
                .orElseThrow().id());
        service.enable(account.id(), spare.key().id());
        assertEquals(ManagementKeyPolicy.MAX_ACTIVE_PER_ACCOUNT, service.list(account.id()).active());
    }

    @Test
    void theListShowsStatesNewestFirstAndCountsTheActiveOnes() {
        create("first");
        clock.advance(Duration.ofSeconds(1));
        CreatedManagementKey second = create("second");
        clock.advance(Duration.ofSeconds(1));
        create(account, "third", ManagementAccess.READ_WRITE, START.plusSeconds(10));
        service.disable(account.id(), second.key().id());
        clock.set(START.plusSeconds(10));
        var overview = service.list(account.id());
        assertEquals(List.of("third", "second", "first"),
                overview.keys().stream().map(e -> e.key().name().value()).toList());
        assertEquals(List.of(ManagementKeyState.EXPIRED, ManagementKeyState.DISABLED, ManagementKeyState.ACTIVE),
                overview.keys().stream().map(e -> e.state()).toList());
        assertEquals(1, overview.active());
    }

    @Test
    void authenticationRecordsLastUseAtMostOnceAMinute() {
        CreatedManagementKey created = create("tracked");
        assertEquals(Optional.empty(), stores.managementKeys().findById(created.key().id()).orElseThrow().lastUsedAt());
        clock.advance(Duration.ofSeconds(5));
        authentication.authenticate(created.rawKey().reveal());
        assertEquals(Optional.of(START.plusSeconds(5)),
                stores.managementKeys().findById(created.key().id()).orElseThrow().lastUsedAt());
        clock.advance(Duration.ofSeconds(30));
        authentication.authenticate(created.rawKey().reveal());
        assertEquals(Optional.of(START.plusSeconds(5)),
                stores.managementKeys().findById(created.key().id()).orElseThrow().lastUsedAt());
        clock.advance(Duration.ofSeconds(31));
        authentication.authenticate(created.rawKey().reveal());
        assertEquals(Optional.of(START.plusSeconds(66)),
                stores.managementKeys().findById(created.key().id()).orElseThrow().lastUsedAt());
    }
}
