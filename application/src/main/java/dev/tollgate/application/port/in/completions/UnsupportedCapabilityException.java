package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import java.util.List;

/**
 * §2.3: the request uses a feature (tools, response_format, logprobs, seed, image input) no provider of the model
 * supports.
 */
public final class UnsupportedCapabilityException extends UseCaseException {

    private final String param;

    public UnsupportedCapabilityException(ModelId model, List<String> features) {
        super("The model '" + model + "' does not support " + String.join(", ", features)
                + " with any of its providers; remove the field or pick another model");
        this.param = ModelCapabilities.requestField(features.get(0));
    }

    public String param() {
        return param;
    }

    @Override
    public String code() {
        return "unsupported_parameter";
    }
}
