package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;

/** §7.2: bad header, key value or key state on {@code /v1/*}; one message for every cause. */
public final class InvalidApiKeyException extends UseCaseException {

    public InvalidApiKeyException() {
        super("Invalid API key: send an enabled regular key (gp-...) as 'Authorization: Bearer <key>'");
    }

    @Override
    public String code() {
        return "invalid_api_key";
    }
}
