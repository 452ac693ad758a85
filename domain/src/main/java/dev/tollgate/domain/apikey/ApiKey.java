package dev.tollgate.domain.apikey;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.Expiry;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Timestamps;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Entity: a regular API key ({@code gp-}) with its lifecycle (§3) and spend-limit rules (§4.1).
 * Time always arrives as an argument.
 */
public final class ApiKey {

    public static final String LIMIT_RESET_REQUIRES_LIMIT = "limit_reset requires limit";

    private final ApiKeyId id;
    private final AccountId accountId;
    private final KeyHash hash;
    private final String label;
    private final Instant createdAt;
    private KeyName name;
    private boolean disabled;
    private SpendLimit limit;
    private Instant expiresAt;
    private Instant updatedAt;
    private Instant deletedAt;

    private ApiKey(ApiKeyId id, AccountId accountId, KeyHash hash, String label, KeyName name, boolean disabled,
            SpendLimit limit, Instant expiresAt, Instant createdAt, Instant updatedAt, Instant deletedAt) {
        this.id = Objects.requireNonNull(id);
        this.accountId = Objects.requireNonNull(accountId);
        this.hash = Objects.requireNonNull(hash);
        this.label = Objects.requireNonNull(label);
        this.name = Objects.requireNonNull(name);
        this.disabled = disabled;
        this.limit = limit;
        this.expiresAt = expiresAt;
        this.createdAt = Objects.requireNonNull(createdAt);
        this.updatedAt = Objects.requireNonNull(updatedAt);
        this.deletedAt = deletedAt;
    }

    /**
     * Issues a new enabled key. §4.1 rule 1: a limit without a reset period is a lifetime total;
     * rule 2: a reset period without a limit is refused; rule 4: an expiry lies in the future.
     */
    public static ApiKey issue(AccountId accountId, KeyHash hash, String label, KeyName name, Usd limitAmount,
            LimitReset limitReset, Instant expiresAt, Instant now) {
        Instant created = Timestamps.millis(now);
        SpendLimit limit = limitOf(limitAmount, limitReset);
        Instant expiry = expiresAt == null ? null : Expiry.requireFuture(Timestamps.millis(expiresAt), created);
        return new ApiKey(ApiKeyId.newId(), accountId, hash, label, name, false, limit, expiry, created, created, null);
    }

    public static ApiKey restore(ApiKeyId id, AccountId accountId, KeyHash hash, String label, KeyName name,
            boolean disabled, SpendLimit limit, Instant expiresAt, Instant createdAt, Instant updatedAt,
            Instant deletedAt) {
        return new ApiKey(id, accountId, hash, label, name, disabled, limit, expiresAt, createdAt, updatedAt,
                deletedAt);
    }

    private static SpendLimit limitOf(Usd amount, LimitReset reset) {
        if (amount == null) {
            if (reset != null) {
                throw new DomainRuleViolation("limit_reset", LIMIT_RESET_REQUIRES_LIMIT);
            }
            return null;
        }
        return new SpendLimit(amount, reset);
    }

    /**
     * Applies a PATCH (§3, §4.1). All rules are checked before anything changes, so a refused update
     * leaves the key untouched. Every successful update moves {@code updated_at} forward.
     */
    public void update(ApiKeyChanges changes, Instant now) {
        requireNotDeleted();
        KeyName newName = name;
        if (changes.name() instanceof FieldChange.Set<KeyName> set) {
            newName = set.value();
        } else if (changes.name() instanceof FieldChange.Clear) {
            throw new DomainRuleViolation("name", "name cannot be null");
        }
        boolean newDisabled = disabled;
        if (changes.disabled() instanceof FieldChange.Set<Boolean> set) {
            newDisabled = set.value();
        } else if (changes.disabled() instanceof FieldChange.Clear) {
            throw new DomainRuleViolation("disabled", "disabled must be true or false, not null");
        }
        SpendLimit newLimit = nextLimit(changes.limit(), changes.limitReset());
        Instant newExpiry = expiresAt;
        if (changes.expiresAt() instanceof FieldChange.Set<Instant> set) {
            newExpiry = Expiry.requireFuture(Timestamps.millis(set.value()), now);
        } else if (changes.expiresAt() instanceof FieldChange.Clear) {
            newExpiry = null; // §4.1 rule 5
        }
        name = newName;
        disabled = newDisabled;
        limit = newLimit;
        expiresAt = newExpiry;
        updatedAt = Timestamps.nextWrite(updatedAt, now);
    }

    private SpendLimit nextLimit(FieldChange<Usd> limitChange, FieldChange<LimitReset> resetChange) {
        LimitReset requestedReset = resetChange instanceof FieldChange.Set<LimitReset> set ? set.value() : null;
        if (limitChange instanceof FieldChange.Set<Usd> set) {
            // §4.1 rule 1: a new limit without limit_reset is a lifetime total.
            return new SpendLimit(set.value(), requestedReset);
        }
        if (requestedReset != null || limitChange instanceof FieldChange.Keep && !(resetChange
                instanceof FieldChange.Keep)) {
            // §4.1 rule 2: limit_reset sent (a period, or null / empty for none) without limit, or with a limit of
            // null, which removes the cap the period would belong to.
            throw new DomainRuleViolation("limit_reset", LIMIT_RESET_REQUIRES_LIMIT);
        }
        if (limitChange instanceof FieldChange.Clear) {
            // §4.1 rule 3: limit null removes the limit and clears limit_reset.
            return null;
        }
        return limit;
    }

    /** §3: DELETE moves an enabled or disabled key to deleted; afterwards its hash is unknown. */
    public void delete(Instant now) {
        requireNotDeleted();
        deletedAt = Timestamps.millis(now);
        updatedAt = Timestamps.nextWrite(updatedAt, now);
    }

    private void requireNotDeleted() {
        if (deletedAt != null) {
            throw new IllegalStateException("key " + hash + " is deleted");
        }
    }

    public ApiKeyState state(Instant now) {
        if (deletedAt != null) {
            return ApiKeyState.DELETED;
        }
        if (Expiry.isExpired(expiresAt, now)) {
            return ApiKeyState.EXPIRED;
        }
        return disabled ? ApiKeyState.DISABLED : ApiKeyState.ENABLED;
    }

    public ApiKeyId id() {
        return id;
    }

    public AccountId accountId() {
        return accountId;
    }

    public KeyHash hash() {
        return hash;
    }

    public String label() {
        return label;
    }

    public KeyName name() {
        return name;
    }

    public boolean disabled() {
        return disabled;
    }

    public Optional<SpendLimit> limit() {
        return Optional.ofNullable(limit);
    }

    public Optional<Instant> expiresAt() {
        return Optional.ofNullable(expiresAt);
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant updatedAt() {
        return updatedAt;
    }

    public Optional<Instant> deletedAt() {
        return Optional.ofNullable(deletedAt);
    }
}
