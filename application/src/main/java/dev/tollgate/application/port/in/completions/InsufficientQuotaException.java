package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;

/**
 * §7.2 {@code insufficient_quota}: a billing state, not throttling — the prepaid balance cannot cover the
 * request's maximum cost, or the key's own USD limit is reached in its window. Retrying does not help.
 */
public final class InsufficientQuotaException extends UseCaseException {

    public enum Reason {
        ACCOUNT_BALANCE,
        KEY_LIMIT
    }

    private final Reason reason;

    public InsufficientQuotaException(Reason reason) {
        super(reason == Reason.ACCOUNT_BALANCE
                ? "The account's prepaid balance is too low for this request's maximum cost; add funds, or lower "
                        + "max_tokens"
                : "This key has reached its USD spend limit for the current period; raise the key's limit or wait "
                        + "for its reset");
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String code() {
        return "insufficient_quota";
    }
}
