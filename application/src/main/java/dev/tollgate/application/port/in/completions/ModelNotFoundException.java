package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.catalog.ModelId;

/** §2.3: a stale or unsupported model id; the client refreshes from {@code GET /v1/models}. */
public final class ModelNotFoundException extends UseCaseException {

    public ModelNotFoundException(ModelId model) {
        super("The model '" + model + "' does not exist or is not offered; see GET /v1/models");
    }

    /** A model this surface does not offer (the public playground serves a few models only). */
    public ModelNotFoundException(ModelId model, String offered) {
        super("The model '" + model + "' is not offered here; choose one of: " + offered);
    }

    private ModelNotFoundException(String message) {
        super(message);
    }

    /** An id longer than any model id may be ({@link ModelId#MAX_LENGTH}): no model has it. */
    public static ModelNotFoundException noModelThatLong(String id) {
        return new ModelNotFoundException("The model '" + id.substring(0, 64) + "…' (" + id.length()
                + " characters; ids have at most " + ModelId.MAX_LENGTH + ") does not exist; see GET /v1/models");
    }

    @Override
    public String code() {
        return "model_not_found";
    }
}
