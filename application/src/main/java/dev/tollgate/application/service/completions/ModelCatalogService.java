package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.CatalogUnavailableException;
import dev.tollgate.application.port.in.completions.ListModelsUseCase;
import dev.tollgate.application.port.in.completions.ModelNotFoundException;
import dev.tollgate.application.port.out.ModelCatalog;
import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelId;
import java.util.List;

/** Service: the model list of §4.2, straight from the catalog. */
public final class ModelCatalogService implements ListModelsUseCase {

    private final ModelCatalog catalog;

    public ModelCatalogService(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public List<CatalogModel> list() {
        try {
            return catalog.models();
        } catch (ModelCatalog.CatalogReadException e) {
            // The reason (a file path, a parser's words) is the operator's, in the adapter's log.
            throw new CatalogUnavailableException("try again in a few seconds");
        }
    }

    @Override
    public CatalogModel get(ModelId id) {
        return list().stream().filter(m -> m.id().equals(id)).findFirst()
                .orElseThrow(() -> new ModelNotFoundException(id));
    }
}
