package dev.tollgate.bootstrap.cli;

import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.util.function.Function;

/**
 * Runs one operator command inside an application context (no HTTP server) on the same datastore the server
 * uses, attaching to a running embedded PostgreSQL when the gateway is up.
 */
public interface CliContext {

    <T> T run(Function<ApplicationContext, T> command) throws IOException;
}
