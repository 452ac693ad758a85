package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;

/** §4.2: the model catalog cannot be read right now. */
public final class CatalogUnavailableException extends UseCaseException {

    public CatalogUnavailableException(String reason) {
        super("The model catalog is temporarily unavailable: " + reason);
    }

    @Override
    public String code() {
        return "service_unavailable";
    }
}
