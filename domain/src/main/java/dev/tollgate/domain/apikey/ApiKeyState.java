package dev.tollgate.domain.apikey;

/** The states of a regular key that the interface shows (§3). */
public enum ApiKeyState {
    ENABLED,
    DISABLED,
    EXPIRED,
    DELETED
}
