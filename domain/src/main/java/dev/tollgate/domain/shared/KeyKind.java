package dev.tollgate.domain.shared;

/** The two kinds of secret the service issues, told apart by their prefix (§1 key types). */
public enum KeyKind {
    /** Regular API key: authenticates {@code /v1/*} model requests. */
    REGULAR("gp-"),
    /** Management API key: authenticates {@code /api/v1/keys*}. */
    MANAGEMENT("gpm-");

    private final String prefix;

    KeyKind(String prefix) {
        this.prefix = prefix;
    }

    public String prefix() {
        return prefix;
    }
}
