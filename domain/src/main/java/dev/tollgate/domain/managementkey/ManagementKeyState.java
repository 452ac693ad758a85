package dev.tollgate.domain.managementkey;

/** Management key states (§3): only an active key authenticates. */
public enum ManagementKeyState {
    ACTIVE,
    DISABLED,
    EXPIRED
}
