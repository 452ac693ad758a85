package dev.tollgate.domain.billing;

import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.Usd;

/** §4.1, §8.1: a key's USD limit caps what the key may spend in its window, holds of running requests included. */
public final class SpendLimitPolicy {

    private SpendLimitPolicy() {
    }

    /**
     * Whether a new hold fits under the key's cap: settled spend in the cap's window plus the holds still open in
     * that window plus the new hold must not exceed the cap. No cap: always.
     */
    public static boolean allows(SpendLimit limit, Usd spentInWindow, Usd heldInWindow, Usd newHold) {
        if (limit == null) {
            return true;
        }
        return spentInWindow.plus(heldInWindow).plus(newHold).compareTo(limit.amount()) <= 0;
    }
}
