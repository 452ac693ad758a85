package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.catalog.ModelId;

/** §2.3: a stale or unsupported model id; the client refreshes from {@code GET /v1/models}. */
public final class ModelNotFoundException extends UseCaseException {

    private final String requested;

    public ModelNotFoundException(ModelId model) {
        this(model.value(), "The model '" + model + "' does not exist or is not offered; see GET /v1/models");
    }

    /** A model this surface does not offer (the public playground serves a few models only). */
    public ModelNotFoundException(ModelId model, String offered) {
        this(model.value(), notOfferedMessage(model.value(), offered));
    }

    private ModelNotFoundException(String requested, String message) {
        super(message);
        this.requested = requested;
    }

    private static String notOfferedMessage(String requested, String offered) {
        String shown = requested.length() > ModelId.MAX_LENGTH ? requested.substring(0, 64) + "…" : requested;
        return "The model '" + shown + "' is not offered here; choose one of: " + offered;
    }

    /**
     * The same refusal on a surface that offers a few models only, naming them: its callers may have no key to
     * list models with (the anonymous playground).
     */
    public ModelNotFoundException offering(String offered) {
        return new ModelNotFoundException(requested, notOfferedMessage(requested, offered));
    }

    /**
     * The model id a client asked for: one longer than any id may be ({@link ModelId#MAX_LENGTH}) names no model,
     * so it is this 404 (§7.2) rather than a 400 about its length.
     */
    public static ModelId requested(String id) {
        if (id.length() > ModelId.MAX_LENGTH) {
            throw new ModelNotFoundException(id, "The model '" + id.substring(0, 64) + "…' (" + id.length()
                    + " characters; ids have at most " + ModelId.MAX_LENGTH + ") does not exist; see GET /v1/models");
        }
        return new ModelId(id);
    }

    @Override
    public String code() {
        return "model_not_found";
    }
}
