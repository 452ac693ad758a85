package dev.tollgate.application.port.in.keys;

import dev.tollgate.application.port.in.UseCaseException;

/** §4.1 rule 8: the hash is unknown, deleted, or belongs to another account; all three look the same. */
public final class ApiKeyNotFoundException extends UseCaseException {

    public ApiKeyNotFoundException() {
        super("API key not found");
    }

    @Override
    public String code() {
        return "api_key_not_found";
    }
}
