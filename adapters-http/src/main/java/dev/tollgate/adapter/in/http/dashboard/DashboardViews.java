package dev.tollgate.adapter.in.http.dashboard;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.ConditionalFilter;
import io.micronaut.views.ViewsFilter;
import io.micronaut.views.ViewsModelDecorator;
import io.micronaut.views.ViewsRendererLocator;
import io.micronaut.views.ViewsResolver;
import io.micronaut.views.turbo.TurboFrameRenderer;

/**
 * HTTP adapter: the dashboard's templates rendered by Micronaut Views' own filter, which this one replaces so that
 * it runs on the dashboard's paths only ({@link DashboardPaths}). Declared for every path, the library's filter ran
 * its reactive chain around every model API request too, for answers that are never views (a CPU profile of chat
 * completions found about 8 % of its samples there).
 */
@Filter(Filter.MATCH_ALL_PATTERN)
@Replaces(ViewsFilter.class)
@Requires(beans = ViewsResolver.class)
final class DashboardViews extends ViewsFilter implements ConditionalFilter {

    DashboardViews(ViewsResolver resolver, ViewsRendererLocator renderers, ViewsModelDecorator decorator,
            TurboFrameRenderer frames) {
        super(resolver, renderers, decorator, frames);
    }

    @Override
    public boolean isEnabled(HttpRequest<?> request) {
        return DashboardPaths.covers(request.getPath());
    }
}
