package dev.tollgate.domain.managementkey;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.shared.Expiry;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Timestamps;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Entity: a management key ({@code gpm-}) that manages the regular keys of its own account (§1).
 * States active, disabled and expired (§3); only an active key authenticates.
 */
public final class ManagementKey {

    private final ManagementKeyId id;
    private final AccountId accountId;
    private final KeyName name;
    private final ManagementAccess access;
    private final KeyHash hash;
    private final String label;
    private final Instant expiresAt;
    private final Instant createdAt;
    private final Instant lastUsedAt;
    private boolean disabled;
    private Instant updatedAt;

    private ManagementKey(ManagementKeyId id, AccountId accountId, KeyName name, ManagementAccess access,
            KeyHash hash, String label, boolean disabled, Instant expiresAt, Instant createdAt, Instant updatedAt,
            Instant lastUsedAt) {
        this.id = Objects.requireNonNull(id);
        this.accountId = Objects.requireNonNull(accountId);
        this.name = Objects.requireNonNull(name);
        this.access = Objects.requireNonNull(access);
        this.hash = Objects.requireNonNull(hash);
        this.label = Objects.requireNonNull(label);
        this.disabled = disabled;
        this.expiresAt = expiresAt;
        this.createdAt = Objects.requireNonNull(createdAt);
        this.updatedAt = Objects.requireNonNull(updatedAt);
        this.lastUsedAt = lastUsedAt;
    }

    public static ManagementKey issue(AccountId accountId, KeyName name, ManagementAccess access, KeyHash hash,
            String label, Instant expiresAt, Instant now) {
        Instant created = Timestamps.millis(now);
        Instant expiry = expiresAt == null ? null : Expiry.requireFuture(Timestamps.millis(expiresAt), created);
        return new ManagementKey(ManagementKeyId.newId(), accountId, name, access, hash, label, false, expiry,
                created, created, null);
    }

    public static ManagementKey restore(ManagementKeyId id, AccountId accountId, KeyName name,
            ManagementAccess access, KeyHash hash, String label, boolean disabled, Instant expiresAt,
            Instant createdAt, Instant updatedAt) {
        return restore(id, accountId, name, access, hash, label, disabled, expiresAt, createdAt, updatedAt, null);
    }

    /** A stored key; {@code lastUsedAt} (null when never used) is recorded at most once a minute. */
    public static ManagementKey restore(ManagementKeyId id, AccountId accountId, KeyName name,
            ManagementAccess access, KeyHash hash, String label, boolean disabled, Instant expiresAt,
            Instant createdAt, Instant updatedAt, Instant lastUsedAt) {
        return new ManagementKey(id, accountId, name, access, hash, label, disabled, expiresAt, createdAt,
                updatedAt, lastUsedAt);
    }

    public ManagementKeyState state(Instant now) {
        if (disabled) {
            return ManagementKeyState.DISABLED;
        }
        return Expiry.isExpired(expiresAt, now) ? ManagementKeyState.EXPIRED : ManagementKeyState.ACTIVE;
    }

    public void disable(Instant now) {
        disabled = true;
        updatedAt = Timestamps.nextWrite(updatedAt, now);
    }

    public void enable(Instant now) {
        disabled = false;
        updatedAt = Timestamps.nextWrite(updatedAt, now);
    }

    public ManagementKeyId id() {
        return id;
    }

    public AccountId accountId() {
        return accountId;
    }

    public KeyName name() {
        return name;
    }

    public ManagementAccess access() {
        return access;
    }

    public KeyHash hash() {
        return hash;
    }

    public String label() {
        return label;
    }

    public boolean disabled() {
        return disabled;
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

    /** When the key last authenticated, to the minute (the store records it at most once a minute). */
    public Optional<Instant> lastUsedAt() {
        return Optional.ofNullable(lastUsedAt);
    }
}
