package dev.tollgate.bootstrap;

import dev.tollgate.bootstrap.cli.AdminCommand;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.Micronaut;
import io.micronaut.runtime.exceptions.ApplicationStartupException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the one jar: with no arguments (or {@code serve}) it serves the gateway; {@code admin …} runs
 * an operator command against the same datastore and exits.
 */
@Command(name = "tollgate", mixinStandardHelpOptions = true, version = "Tollgate 0.1.0",
        description = "Self-hostable inference gateway with key management.",
        subcommands = {TollgateApplication.Serve.class, AdminCommand.class})
public final class TollgateApplication implements Callable<Integer> {

    public static void main(String[] args) {
        if (args.length == 0) {
            int exit = serve();
            if (exit != 0) {
                System.exit(exit);
            }
            return; // the server's non-daemon threads keep the JVM alive
        }
        if (!"serve".equals(args[0])) {
            // Operator commands: stdout carries only the requested value, logs go to stderr.
            System.setProperty("tollgate.log.target", "System.err");
            System.setProperty("tollgate.log.level", "WARN");
        }
        int exit = new CommandLine(new TollgateApplication()).execute(args);
        if (exit != 0 || !"serve".equals(args[0]) || args.length > 1) { // serve --help, --version: printed
            System.exit(exit);
        }
    }

    @Override
    public Integer call() {
        return serve();
    }

    /** Starts the HTTP server on the chosen datastore; returns only on a start-up failure. */
    static int serve() {
        Logger log = LoggerFactory.getLogger(TollgateApplication.class);
        // A stop signal while the gateway starts (the embedded PostgreSQL starting, or Micronaut) comes before
        // Micronaut's own shutdown hook exists: this one stops the PostgreSQL the start left behind. Once the
        // gateway serves, Micronaut's hook stops the server and then, through EmbeddedDatastoreShutdown, the
        // database, in that order; this one is removed then so that it cannot stop the database under a graceful
        // shutdown.
        AtomicReference<Datastore> opened = new AtomicReference<>();
        CountDownLatch selected = new CountDownLatch(1);
        Thread stopWhileStarting = new Thread(() -> {
            try {
                selected.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Datastore started = opened.get();
            if (started != null) {
                started.close();
            }
        }, "tollgate-stop-while-starting");
        Runtime.getRuntime().addShutdownHook(stopWhileStarting);
        Datastore datastore;
        try {
            datastore = Datastore.select(System.getenv());
            opened.set(datastore);
        } catch (Exception e) {
            log.error("Cannot open the datastore: {}", FailureLine.of(e));
            log.debug("Datastore failure", e);
            return 1;
        } finally {
            selected.countDown();
        }
        log.info("Datastore: {}", datastore.description());
        try {
            // Micronaut's own shutdown hook stops the server and the context; EmbeddedDatastoreShutdown then
            // stops the embedded PostgreSQL after the connection pool is closed.
            new FailingStart()
                    .args(new String[0])
                    .mainClass(TollgateApplication.class)
                    .properties(datastore.properties())
                    .singletons(datastore)
                    // Every singleton is made before the first request: a setting that is wrong (a duration that
                    // is no duration, a limit of 0) stops the start-up instead of failing every request with a 500.
                    .eagerInitSingletons(true)
                    .banner(false)
                    .start();
        } catch (RuntimeException e) {
            // One line an operator can act on (the innermost cause names the setting at fault); the stack trace
            // only for whoever debugs the gateway itself.
            String problem = SettingChecks.firstProblem(datastore.properties())
                    .orElseGet(() -> FailureLine.of(e) + SettingChecks.spacedVariables(System.getenv()));
            if (problem.contains("Address already in use")) {
                problem += "; another process listens on that port: stop it, or choose another port with "
                        + "MICRONAUT_SERVER_PORT";
            }
            log.error("Tollgate failed to start: {}", problem);
            log.debug("Start-up failure", e);
            datastore.close();
            return 1;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopWhileStarting);
        } catch (IllegalStateException stopping) {
            // A stop signal came just as the start ended: the hook already runs, and stops the database.
        }
        return 0;
    }

    /**
     * Micronaut as it starts the gateway, except that a start-up failure is thrown to {@link #serve()} rather than
     * ending the JVM on the spot ({@code System.exit} in Micronaut's own handler): serve() logs it and stops the
     * embedded PostgreSQL this process started, which an exit from inside Micronaut left running.
     */
    private static final class FailingStart extends Micronaut {
        @Override
        protected void handleStartupException(Environment environment, Throwable exception) {
            throw new ApplicationStartupException(exception.getMessage(), exception);
        }
    }

    /** {@code tollgate serve}: the same as no arguments. */
    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = "Serve the gateway (the default when no command is given).")
    static final class Serve implements Callable<Integer> {
        @Override
        public Integer call() {
            return serve();
        }
    }
}
