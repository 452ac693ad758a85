package dev.tollgate.domain.billing;

import java.util.Locale;
import java.util.Optional;

/** Where a credit came from: the operator (CLI), or the sum carried over when the credit ledger was introduced. */
public enum CreditSource {
    OPERATOR,
    MIGRATED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<CreditSource> fromWireName(String name) {
        for (CreditSource source : values()) {
            if (source.wireName().equals(name)) {
                return Optional.of(source);
            }
        }
        return Optional.empty();
    }
}
