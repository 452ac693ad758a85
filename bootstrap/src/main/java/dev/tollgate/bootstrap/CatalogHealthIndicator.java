package dev.tollgate.bootstrap;

import dev.tollgate.application.port.out.ModelCatalog;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;
import java.util.Map;
import org.reactivestreams.Publisher;

/**
 * Readiness: the model catalog can be read. While it cannot, every model route answers 503, so the instance is not
 * ready for traffic (a load balancer sends it elsewhere); it is again as soon as the file is fixed. Asking costs
 * no more than a request does: the catalog looks at its file at most once per check interval.
 */
@Singleton
@Readiness
final class CatalogHealthIndicator implements HealthIndicator {

    private final ModelCatalog catalog;

    CatalogHealthIndicator(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        HealthResult.Builder result = HealthResult.builder("catalog");
        try {
            int models = catalog.models().size();
            result.status(HealthStatus.UP).details(Map.of("models", models));
        } catch (ModelCatalog.CatalogReadException e) {
            result.status(HealthStatus.DOWN).details(Map.of("error", e.getMessage()));
        }
        return Publishers.just(result.build());
    }
}
