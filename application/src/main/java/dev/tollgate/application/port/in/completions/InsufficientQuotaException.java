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
                : "What is left of this key's USD spend limit in its current period is too little for this "
                        + "request's maximum cost (its prompt plus max_tokens, or the model's output cap when "
                        + "max_tokens is absent); lower max_tokens, raise the key's limit, or wait for its reset");
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
