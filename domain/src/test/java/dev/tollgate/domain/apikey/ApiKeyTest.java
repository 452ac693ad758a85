package dev.tollgate.domain.apikey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ApiKeyTest {

    private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");
    private static final AccountId ACCOUNT = new AccountId(UUID.fromString("00000000-0000-0000-0000-000000000001"));
    private static final KeyHash HASH = new KeyHash("ab".repeat(32));
    private static final String LABEL = "gp-...3v7W";
    private static final Usd TEN = Usd.ofMicros(10_000_000);
    private static final Usd TWENTY = Usd.ofMicros(20_000_000);

    private static ApiKey issue(Usd limit, LimitReset reset, Instant expiresAt) {
        return ApiKey.issue(ACCOUNT, HASH, LABEL, new KeyName("prod"), limit, reset, expiresAt, NOW);
    }

    private static ApiKey plainKey() {
        return issue(null, null, null);
    }

    /** A PATCH body: every field absent unless set or cleared. */
    private static final class Patch {
        private FieldChange<KeyName> name = FieldChange.keep();
        private FieldChange<Boolean> disabled = FieldChange.keep();
        private FieldChange<Usd> limit = FieldChange.keep();
        private FieldChange<LimitReset> limitReset = FieldChange.keep();
        private FieldChange<Instant> expiresAt = FieldChange.keep();

        Patch name(FieldChange<KeyName> change) {
            name = change;
            return this;
        }

        Patch disabled(FieldChange<Boolean> change) {
            disabled = change;
            return this;
        }

        Patch limit(FieldChange<Usd> change) {
            limit = change;
            return this;
        }

        Patch limitReset(FieldChange<LimitReset> change) {
            limitReset = change;
            return this;
        }

        Patch expiresAt(FieldChange<Instant> change) {
            expiresAt = change;
            return this;
        }

        ApiKeyChanges build() {
            return new ApiKeyChanges(name, disabled, limit, limitReset, expiresAt);
        }
    }

    private static Patch patch() {
        return new Patch();
    }

    /** Everything update() may change, to prove a refused update changed nothing. */
    private record Snapshot(KeyName name, boolean disabled, Optional<SpendLimit> limit, Optional<Instant> expiresAt,
            Instant updatedAt, Optional<Instant> deletedAt) {

        static Snapshot of(ApiKey key) {
            return new Snapshot(key.name(), key.disabled(), key.limit(), key.expiresAt(), key.updatedAt(),
                    key.deletedAt());
        }
    }

    private static DomainRuleViolation assertRefusedUnchanged(ApiKey key, ApiKeyChanges changes, Instant at) {
        Snapshot before = Snapshot.of(key);
        DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> key.update(changes, at));
        assertEquals(before, Snapshot.of(key), "a refused update must change nothing");
        return violation;
    }

    @Nested
    class Issue {

        @Test
        void aNewKeyIsEnabledWithoutLimitOrExpiry() {
            ApiKey key = plainKey();
            assertEquals(ACCOUNT, key.accountId());
            assertEquals(HASH, key.hash());
            assertEquals(LABEL, key.label());
            assertEquals(new KeyName("prod"), key.name());
            assertFalse(key.disabled());
            assertEquals(Optional.empty(), key.limit());
            assertEquals(Optional.empty(), key.expiresAt());
            assertEquals(Optional.empty(), key.deletedAt());
            assertEquals(NOW, key.createdAt());
            assertEquals(NOW, key.updatedAt());
            assertEquals(ApiKeyState.ENABLED, key.state(NOW));
        }

        @Test
        void rule1ALimitWithoutResetIsALifetimeTotal() {
            ApiKey key = issue(TEN, null, null);
            SpendLimit limit = key.limit().orElseThrow();
            assertEquals(TEN, limit.amount());
            assertEquals(Optional.empty(), limit.resetPeriod());
            assertEquals(SpendLimit.lifetime(TEN), limit);
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void aLimitWithResetKeepsItsPeriod(LimitReset reset) {
            ApiKey key = issue(TEN, reset, null);
            assertEquals(new SpendLimit(TEN, reset), key.limit().orElseThrow());
            assertEquals(Optional.of(reset), key.limit().orElseThrow().resetPeriod());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void rule2ALimitResetWithoutLimitIsRefused(LimitReset reset) {
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class, () -> issue(null, reset, null));
            assertEquals("limit_reset requires limit", violation.getMessage());
            assertEquals("limit_reset", violation.field());
        }

        @Test
        void aZeroLimitIsRefused() {
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class,
                    () -> issue(Usd.ZERO, null, null));
            assertEquals("limit", violation.field());
            assertThrows(DomainRuleViolation.class, () -> issue(Usd.ZERO, LimitReset.DAILY, null));
            assertEquals(Usd.ofMicros(1), issue(Usd.ofMicros(1), null, null).limit().orElseThrow().amount());
        }

        @Test
        void rule4ExpiresAtMustBeInTheFuture() {
            for (Instant notFuture : List.of(NOW, NOW.minusMillis(1), NOW.minusSeconds(86_400))) {
                DomainRuleViolation violation = assertThrows(DomainRuleViolation.class,
                        () -> issue(null, null, notFuture), notFuture::toString);
                assertEquals("expires_at", violation.field());
            }
            assertEquals(Optional.of(NOW.plusMillis(1)), issue(null, null, NOW.plusMillis(1)).expiresAt());
        }

        @Test
        void anExpiryInsideTheCurrentMillisecondIsNotInTheFuture() {
            // Kept at millisecond precision, 0.5 ms ahead is the creation millisecond itself.
            assertThrows(DomainRuleViolation.class, () -> issue(null, null, NOW.plusNanos(500_000)));
        }

        @Test
        void timestampsAreTruncatedToMilliseconds() {
            Instant now = Instant.parse("2026-03-04T12:00:00.123456789Z");
            ApiKey key = ApiKey.issue(ACCOUNT, HASH, LABEL, new KeyName("k"), null, null,
                    Instant.parse("2026-03-05T08:00:00.987654321Z"), now);
            assertEquals(Instant.parse("2026-03-04T12:00:00.123Z"), key.createdAt());
            assertEquals(Instant.parse("2026-03-04T12:00:00.123Z"), key.updatedAt());
            assertEquals(Optional.of(Instant.parse("2026-03-05T08:00:00.987Z")), key.expiresAt());
        }

        @Test
        void everyIssuedKeyHasItsOwnId() {
            assertFalse(plainKey().id().equals(plainKey().id()));
        }
    }

    @Nested
    class Update {

        @Test
        void rule1ANewLimitWithoutResetIsALifetimeTotal() {
            ApiKey key = plainKey();
            key.update(patch().limit(FieldChange.set(TEN)).build(), NOW.plusSeconds(1));
            assertEquals(SpendLimit.lifetime(TEN), key.limit().orElseThrow());
        }

        @Test
        void rule1ANewLimitWithoutResetReplacesAPeriodicLimitWithALifetimeOne() {
            ApiKey key = issue(TEN, LimitReset.DAILY, null);
            key.update(patch().limit(FieldChange.set(TWENTY)).build(), NOW.plusSeconds(1));
            assertEquals(SpendLimit.lifetime(TWENTY), key.limit().orElseThrow());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void aLimitWithResetSetsBoth(LimitReset reset) {
            ApiKey key = issue(TEN, null, null);
            key.update(patch().limit(FieldChange.set(TWENTY)).limitReset(FieldChange.set(reset)).build(),
                    NOW.plusSeconds(1));
            assertEquals(new SpendLimit(TWENTY, reset), key.limit().orElseThrow());
        }

        @Test
        void aLimitWithAnExplicitNullResetIsALifetimeTotal() {
            ApiKey key = issue(TEN, LimitReset.WEEKLY, null);
            key.update(patch().limit(FieldChange.set(TWENTY)).limitReset(FieldChange.clear()).build(),
                    NOW.plusSeconds(1));
            assertEquals(SpendLimit.lifetime(TWENTY), key.limit().orElseThrow());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void rule2ALimitResetWithoutLimitIsRefusedOnAKeyWithoutLimit(LimitReset reset) {
            ApiKey key = plainKey();
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().limitReset(FieldChange.set(reset)).build(), NOW.plusSeconds(1));
            assertEquals("limit_reset requires limit", violation.getMessage());
            assertEquals("limit_reset", violation.field());
        }

        @Test
        void rule2ALimitResetWithoutLimitIsRefusedEvenWhenTheKeyHasALimit() {
            ApiKey key = issue(TEN, LimitReset.DAILY, null);
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().limitReset(FieldChange.set(LimitReset.WEEKLY)).build(), NOW.plusSeconds(1));
            assertEquals("limit_reset requires limit", violation.getMessage());
            assertEquals(new SpendLimit(TEN, LimitReset.DAILY), key.limit().orElseThrow());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void rule2ANullLimitWithALimitResetIsRefused(LimitReset reset) {
            ApiKey key = issue(TEN, LimitReset.MONTHLY, null);
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().limit(FieldChange.clear()).limitReset(FieldChange.set(reset)).build(),
                    NOW.plusSeconds(1));
            assertEquals("limit_reset requires limit", violation.getMessage());
            assertEquals(new SpendLimit(TEN, LimitReset.MONTHLY), key.limit().orElseThrow());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void rule3ANullLimitRemovesTheLimitAndItsReset(LimitReset reset) {
            ApiKey key = issue(TEN, reset, null);
            key.update(patch().limit(FieldChange.clear()).build(), NOW.plusSeconds(1));
            assertEquals(Optional.empty(), key.limit());
            assertEquals(ApiKeyState.ENABLED, key.state(NOW.plusSeconds(1)), "§3: same state");
        }

        @Test
        void aNullLimitTogetherWithANullResetRemovesTheLimit() {
            ApiKey key = issue(TEN, LimitReset.DAILY, null);
            key.update(patch().limit(FieldChange.clear()).limitReset(FieldChange.clear()).build(),
                    NOW.plusSeconds(1));
            assertEquals(Optional.empty(), key.limit());
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void aNullResetWithoutALimitIsRefusedToo(LimitReset reset) {
            // §4.1 rule 2 reads "sent": null (none) is sent as much as a period; the cap is changed with its limit.
            ApiKey key = issue(TEN, reset, null);
            DomainRuleViolation violation = assertThrows(DomainRuleViolation.class,
                    () -> key.update(patch().limitReset(FieldChange.clear()).build(), NOW.plusSeconds(1)));
            assertEquals("limit_reset requires limit", violation.getMessage());
            assertEquals(new SpendLimit(TEN, reset), key.limit().orElseThrow(), "unchanged");
            assertThrows(DomainRuleViolation.class,
                    () -> plainKey().update(patch().limitReset(FieldChange.clear()).build(), NOW.plusSeconds(1)));
        }

        @ParameterizedTest
        @EnumSource(LimitReset.class)
        void theSameLimitWithANullResetMakesItALifetimeTotal(LimitReset reset) {
            ApiKey key = issue(TEN, reset, null);
            key.update(patch().limit(FieldChange.set(TEN)).limitReset(FieldChange.clear()).build(), NOW.plusSeconds(1));
            assertEquals(SpendLimit.lifetime(TEN), key.limit().orElseThrow());
        }

        @Test
        void anAbsentLimitKeepsTheLimitAndItsReset() {
            ApiKey key = issue(TEN, LimitReset.WEEKLY, null);
            key.update(patch().name(FieldChange.set(new KeyName("renamed"))).build(), NOW.plusSeconds(1));
            assertEquals(new SpendLimit(TEN, LimitReset.WEEKLY), key.limit().orElseThrow());
        }

        @Test
        void aZeroLimitIsRefused() {
            ApiKey key = issue(TEN, null, null);
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().limit(FieldChange.set(Usd.ZERO)).build(), NOW.plusSeconds(1));
            assertEquals("limit", violation.field());
        }

        @Test
        void rule4ExpiresAtMustBeInTheFuture() {
            ApiKey key = plainKey();
            Instant at = NOW.plusSeconds(60);
            for (Instant notFuture : List.of(at, at.minusMillis(1), NOW, NOW.minusSeconds(3600))) {
                DomainRuleViolation violation = assertRefusedUnchanged(key,
                        patch().expiresAt(FieldChange.set(notFuture)).build(), at);
                assertEquals("expires_at", violation.field());
            }
            key.update(patch().expiresAt(FieldChange.set(at.plusMillis(1))).build(), at);
            assertEquals(Optional.of(at.plusMillis(1)), key.expiresAt());
        }

        @Test
        void aNewExpiryIsTruncatedToMilliseconds() {
            ApiKey key = plainKey();
            key.update(patch().expiresAt(FieldChange.set(Instant.parse("2026-04-01T00:00:00.000999999Z"))).build(),
                    NOW.plusSeconds(1));
            assertEquals(Optional.of(Instant.parse("2026-04-01T00:00:00Z")), key.expiresAt());
        }

        @Test
        void rule5ANullExpiryRemovesTheExpiration() {
            ApiKey key = issue(null, null, NOW.plusSeconds(3600));
            key.update(patch().expiresAt(FieldChange.clear()).build(), NOW.plusSeconds(1));
            assertEquals(Optional.empty(), key.expiresAt());
            assertEquals(ApiKeyState.ENABLED, key.state(NOW.plusSeconds(1)));
            assertEquals(ApiKeyState.ENABLED, key.state(NOW.plusSeconds(365L * 86_400)));
        }

        @Test
        void aNullExpiryKeepsADisabledKeyDisabled() {
            ApiKey key = issue(null, null, NOW.plusSeconds(3600));
            key.update(patch().disabled(FieldChange.set(true)).build(), NOW.plusSeconds(1));
            key.update(patch().expiresAt(FieldChange.clear()).build(), NOW.plusSeconds(2));
            assertEquals(Optional.empty(), key.expiresAt());
            assertEquals(ApiKeyState.DISABLED, key.state(NOW.plusSeconds(7200)));
        }

        @Test
        void theNameCanBeChangedButNotCleared() {
            ApiKey key = plainKey();
            key.update(patch().name(FieldChange.set(new KeyName("staging"))).build(), NOW.plusSeconds(1));
            assertEquals(new KeyName("staging"), key.name());
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().name(FieldChange.clear()).build(), NOW.plusSeconds(2));
            assertEquals("name", violation.field());
            assertEquals(new KeyName("staging"), key.name());
        }

        @Test
        void disabledCannotBeNull() {
            ApiKey key = plainKey();
            DomainRuleViolation violation = assertRefusedUnchanged(key,
                    patch().disabled(FieldChange.clear()).build(), NOW.plusSeconds(1));
            assertEquals("disabled", violation.field());
        }

        @Test
        void section3DisablingAndEnablingMoveUpdatedAt() {
            ApiKey key = plainKey();
            key.update(patch().disabled(FieldChange.set(true)).build(), NOW.plusSeconds(10));
            assertTrue(key.disabled());
            assertEquals(ApiKeyState.DISABLED, key.state(NOW.plusSeconds(10)));
            assertEquals(NOW.plusSeconds(10), key.updatedAt());

            key.update(patch().disabled(FieldChange.set(false)).build(), NOW.plusSeconds(20));
            assertFalse(key.disabled());
            assertEquals(ApiKeyState.ENABLED, key.state(NOW.plusSeconds(20)));
            assertEquals(NOW.plusSeconds(20), key.updatedAt());
            assertEquals(NOW, key.createdAt(), "created_at never moves");
        }

        @Test
        void aRefusedUpdateChangesNothingEvenWhenOtherFieldsWereValid() {
            ApiKey key = issue(TEN, LimitReset.DAILY, NOW.plusSeconds(3600));
            Instant at = NOW.plusSeconds(5);
            FieldChange<KeyName> rename = FieldChange.set(new KeyName("renamed"));
            List<ApiKeyChanges> refused = List.of(
                    patch().name(rename).disabled(FieldChange.set(true)).limitReset(FieldChange.set(LimitReset.WEEKLY))
                            .build(),
                    patch().name(rename).limit(FieldChange.clear()).limitReset(FieldChange.set(LimitReset.DAILY))
                            .build(),
                    patch().name(rename).limit(FieldChange.set(TWENTY)).expiresAt(FieldChange.set(at)).build(),
                    patch().disabled(FieldChange.set(true)).limit(FieldChange.set(Usd.ZERO)).build(),
                    patch().name(FieldChange.clear()).disabled(FieldChange.set(true)).limit(FieldChange.clear())
                            .expiresAt(FieldChange.clear()).build(),
                    patch().name(rename).disabled(FieldChange.clear()).expiresAt(FieldChange.clear()).build(),
                    patch().limit(FieldChange.set(TWENTY)).expiresAt(FieldChange.set(NOW.minusSeconds(1))).build());
            for (ApiKeyChanges changes : refused) {
                assertRefusedUnchanged(key, changes, at);
            }
            assertEquals(new KeyName("prod"), key.name());
            assertEquals(new SpendLimit(TEN, LimitReset.DAILY), key.limit().orElseThrow());
            assertEquals(Optional.of(NOW.plusSeconds(3600)), key.expiresAt());
            assertFalse(key.disabled());
            assertEquals(NOW, key.updatedAt());
        }

        @Test
        void allFieldsChangeTogether() {
            ApiKey key = issue(TEN, LimitReset.DAILY, NOW.plusSeconds(3600));
            Instant at = NOW.plusSeconds(5);
            key.update(new ApiKeyChanges(FieldChange.set(new KeyName("all")), FieldChange.set(true),
                    FieldChange.set(TWENTY), FieldChange.set(LimitReset.MONTHLY),
                    FieldChange.set(NOW.plusSeconds(7200))), at);
            assertEquals(new KeyName("all"), key.name());
            assertTrue(key.disabled());
            assertEquals(new SpendLimit(TWENTY, LimitReset.MONTHLY), key.limit().orElseThrow());
            assertEquals(Optional.of(NOW.plusSeconds(7200)), key.expiresAt());
            assertEquals(at, key.updatedAt());
        }

        @Test
        void anEmptyPatchChangesOnlyUpdatedAt() {
            ApiKey key = issue(TEN, LimitReset.DAILY, NOW.plusSeconds(3600));
            Snapshot before = Snapshot.of(key);
            key.update(ApiKeyChanges.none(), NOW.plusSeconds(3));
            Snapshot after = Snapshot.of(key);
            assertEquals(new Snapshot(before.name(), before.disabled(), before.limit(), before.expiresAt(),
                    NOW.plusSeconds(3), before.deletedAt()), after);
        }

        @Test
        void updatedAtStrictlyIncreasesEvenWithinOneMillisecond() {
            ApiKey key = plainKey();
            Instant previous = key.updatedAt();
            // Same instant as creation, then the same millisecond again, then sub-millisecond later.
            List<Instant> writes = List.of(NOW, NOW, NOW.plusNanos(400_000), NOW.plusNanos(999_999));
            for (Instant at : writes) {
                key.update(ApiKeyChanges.none(), at);
                assertTrue(key.updatedAt().isAfter(previous), key.updatedAt() + " after " + previous);
                assertEquals(0, key.updatedAt().getNano() % 1_000_000, "millisecond precision");
                previous = key.updatedAt();
            }
            assertEquals(NOW.plusMillis(4), key.updatedAt());
        }

        @Test
        void updatedAtStrictlyIncreasesEvenWhenTheClockStepsBack() {
            ApiKey key = plainKey();
            key.update(ApiKeyChanges.none(), NOW.minusSeconds(30));
            assertEquals(NOW.plusMillis(1), key.updatedAt());
            key.update(ApiKeyChanges.none(), NOW.plusSeconds(1));
            assertEquals(NOW.plusSeconds(1), key.updatedAt());
        }

        @Test
        void updatedAtIsTruncatedToMilliseconds() {
            ApiKey key = plainKey();
            key.update(ApiKeyChanges.none(), Instant.parse("2026-03-04T12:00:07.654321Z"));
            assertEquals(Instant.parse("2026-03-04T12:00:07.654Z"), key.updatedAt());
        }

        @Test
        void anExpiredKeyCanStillBeChanged() {
            ApiKey key = issue(null, null, NOW.plusSeconds(10));
            Instant later = NOW.plusSeconds(20);
            assertEquals(ApiKeyState.EXPIRED, key.state(later));
            key.update(patch().name(FieldChange.set(new KeyName("old"))).build(), later);
            assertEquals(new KeyName("old"), key.name());
            key.update(patch().expiresAt(FieldChange.set(later.plusSeconds(10))).build(), later);
            assertEquals(ApiKeyState.ENABLED, key.state(later));
        }
    }

    @Nested
    class DeleteAndState {

        @Test
        void deleteMovesAnEnabledKeyToDeleted() {
            ApiKey key = plainKey();
            key.delete(NOW.plusSeconds(5));
            assertEquals(ApiKeyState.DELETED, key.state(NOW.plusSeconds(5)));
            assertEquals(Optional.of(NOW.plusSeconds(5)), key.deletedAt());
            assertEquals(NOW.plusSeconds(5), key.updatedAt());
        }

        @Test
        void deleteMovesADisabledKeyToDeleted() {
            ApiKey key = plainKey();
            key.update(patch().disabled(FieldChange.set(true)).build(), NOW.plusSeconds(1));
            key.delete(NOW.plusSeconds(2));
            assertEquals(ApiKeyState.DELETED, key.state(NOW.plusSeconds(2)));
        }

        @Test
        void deletedWinsOverExpired() {
            ApiKey key = issue(null, null, NOW.plusSeconds(10));
            key.delete(NOW.plusSeconds(1));
            assertEquals(ApiKeyState.DELETED, key.state(NOW.plusSeconds(60)));
        }

        @Test
        void deleteTimestampsAreMillisecondsAndUpdatedAtStillMovesForward() {
            ApiKey key = plainKey();
            key.delete(NOW.plusNanos(700_000));
            assertEquals(Optional.of(NOW), key.deletedAt());
            assertEquals(NOW.plusMillis(1), key.updatedAt());
        }

        @Test
        void aDeletedKeyCannotBeChangedOrDeletedAgain() {
            ApiKey key = issue(TEN, null, null);
            key.delete(NOW.plusSeconds(1));
            Snapshot before = Snapshot.of(key);
            List<Consumer<ApiKey>> writes = List.of(
                    k -> k.update(patch().name(FieldChange.set(new KeyName("zombie"))).build(), NOW.plusSeconds(2)),
                    k -> k.update(patch().disabled(FieldChange.set(false)).build(), NOW.plusSeconds(2)),
                    k -> k.delete(NOW.plusSeconds(3)));
            for (Consumer<ApiKey> write : writes) {
                assertThrows(IllegalStateException.class, () -> write.accept(key));
                assertEquals(before, Snapshot.of(key));
            }
        }

        @Test
        void expiredExactlyAtExpiresAtAndNotBefore() {
            Instant expiry = NOW.plusSeconds(3600);
            ApiKey key = issue(null, null, expiry);
            assertEquals(ApiKeyState.ENABLED, key.state(expiry.minusMillis(1)));
            assertEquals(ApiKeyState.ENABLED, key.state(expiry.minusNanos(1)));
            assertEquals(ApiKeyState.EXPIRED, key.state(expiry));
            assertEquals(ApiKeyState.EXPIRED, key.state(expiry.plusMillis(1)));
            assertEquals(ApiKeyState.EXPIRED, key.state(expiry.plusSeconds(86_400 * 365L)));
        }

        @Test
        void aKeyWithoutExpiryNeverExpires() {
            ApiKey key = plainKey();
            assertEquals(ApiKeyState.ENABLED, key.state(Instant.parse("2999-12-31T23:59:59.999Z")));
        }

        @Test
        void stateIsComputedAtTheGivenInstant() {
            ApiKey key = issue(null, null, NOW.plusSeconds(10));
            assertEquals(ApiKeyState.EXPIRED, key.state(NOW.plusSeconds(10)));
            assertEquals(ApiKeyState.ENABLED, key.state(NOW.plusSeconds(9)), "state has no memory of a read");
        }

        @Test
        void restoreKeepsEveryField() {
            ApiKey original = issue(TEN, LimitReset.WEEKLY, NOW.plusSeconds(60));
            original.update(patch().disabled(FieldChange.set(true)).build(), NOW.plusSeconds(1));
            ApiKey restored = ApiKey.restore(original.id(), original.accountId(), original.hash(), original.label(),
                    original.name(), original.disabled(), original.limit().orElse(null),
                    original.expiresAt().orElse(null), original.createdAt(), original.updatedAt(),
                    original.deletedAt().orElse(null));
            assertEquals(original.id(), restored.id());
            assertEquals(Snapshot.of(original), Snapshot.of(restored));
            assertEquals(original.createdAt(), restored.createdAt());
            assertEquals(ApiKeyState.DISABLED, restored.state(NOW.plusSeconds(2)));
        }
    }
}
