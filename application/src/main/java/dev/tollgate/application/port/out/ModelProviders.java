package dev.tollgate.application.port.out;

import java.util.Optional;

/** Out port: the configured providers by name. */
public interface ModelProviders {

    Optional<ModelProvider> byName(String name);
}
