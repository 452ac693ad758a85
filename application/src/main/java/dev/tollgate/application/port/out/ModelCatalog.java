package dev.tollgate.application.port.out;

import dev.tollgate.domain.catalog.CatalogModel;
import java.util.List;

/** Out port: the configured models and their provider routes. */
public interface ModelCatalog {

    /** @throws CatalogReadException the catalog cannot be read */
    List<CatalogModel> models();

    /** The catalog source failed (file missing, unparsable, …). */
    final class CatalogReadException extends RuntimeException {
        public CatalogReadException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
