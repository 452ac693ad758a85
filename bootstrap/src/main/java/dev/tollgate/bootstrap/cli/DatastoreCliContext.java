package dev.tollgate.bootstrap.cli;

import dev.tollgate.bootstrap.Datastore;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.util.function.Function;

/**
 * {@link CliContext} on the datastore the server uses ({@link Datastore#selectExisting}); with the embedded default it
 * attaches to the running gateway's PostgreSQL, or starts one on the gateway's data for the duration of the command
 * (never a new one: a directory without the gateway's data is refused).
 */
final class DatastoreCliContext implements CliContext {

    @Override
    public <T> T run(Function<ApplicationContext, T> command) throws IOException {
        try (Datastore datastore = Datastore.selectExisting(System.getenv());
                ApplicationContext context = ApplicationContext.builder().properties(datastore.properties())
                        .singletons(datastore).start()) {
            return command.apply(context);
        }
    }
}
