package dev.tollgate.application.port.in.completions;

import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelId;
import java.util.List;

/** Use case: the model list ({@code GET /v1/models}, {@code GET /v1/models/{id}}). */
public interface ListModelsUseCase {

    /** @throws CatalogUnavailableException the catalog cannot be read */
    List<CatalogModel> list();

    /** @throws ModelNotFoundException no such model */
    CatalogModel get(ModelId id);
}
