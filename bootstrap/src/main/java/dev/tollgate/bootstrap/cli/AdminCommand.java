package dev.tollgate.bootstrap.cli;

import dev.tollgate.application.port.in.UseCaseException;
import dev.tollgate.bootstrap.FailureLine;
import dev.tollgate.application.port.in.account.CreditAccountUseCase;
import dev.tollgate.application.port.in.account.FindAccountUseCase;
import dev.tollgate.application.port.in.account.OpenAccountCommand;
import dev.tollgate.application.port.in.account.OpenAccountUseCase;
import dev.tollgate.application.port.in.account.ConfirmEmailByOperatorUseCase;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.CreateApiKeyUseCase;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyCommand;
import dev.tollgate.application.port.in.managementkey.CreateManagementKeyUseCase;
import dev.tollgate.application.port.in.managementkey.DisableManagementKeyUseCase;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.DomainRuleViolation;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Rfc3339;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.context.ApplicationContext;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The operator CLI ({@code tollgate admin …}). Each command prints only its requested value on stdout; errors go
 * to stderr with exit code 1, bad arguments print usage with exit code 2.
 */
@Command(name = "admin", mixinStandardHelpOptions = true, version = "Tollgate 0.1.0",
        description = "Operator commands.",
        subcommands = {AdminCommand.AccountCommands.class, AdminCommand.ManagementKeyCommands.class,
                AdminCommand.ApiKeyCommands.class})
public final class AdminCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Where commands run; replaced in tests. */
    CliContext context = new DatastoreCliContext();

    @Override
    public Integer call() {
        throw CommandGroup.missingCommand(spec);
    }

    /** A command that only groups sub-commands: called alone, it prints usage naming them (exit code 2). */
    abstract static class CommandGroup implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @ParentCommand
        AdminCommand admin;

        @Override
        public Integer call() {
            throw missingCommand(spec);
        }

        static ParameterException missingCommand(CommandSpec spec) {
            return new ParameterException(spec.commandLine(),
                    "Missing command: " + String.join(", ", spec.subcommands().keySet()));
        }
    }

    /**
     * Runs a use case and turns refusals into a one-line error and exit code 1 — except a rule the value of one of
     * the command's options broke (an expiry in the past: only the use case knows the time), which is a bad
     * argument like any other: usage and exit code 2.
     */
    int execute(CommandSpec commandSpec, Function<ApplicationContext, String> command) {
        PrintWriter out = commandSpec.commandLine().getOut();
        PrintWriter err = commandSpec.commandLine().getErr();
        try {
            String value = context.run(command);
            if (value != null) {
                out.println(value);
                out.flush();
            }
            return 0;
        } catch (DomainRuleViolation e) {
            String option = e.field() == null ? null : "--" + e.field().replace('_', '-');
            if (option != null && commandSpec.findOption(option) != null) {
                throw new ParameterException(commandSpec.commandLine(), option + ": " + e.getMessage());
            }
            err.println("error: " + e.getMessage());
        } catch (UseCaseException e) {
            err.println("error: " + e.getMessage());
        } catch (Exception e) {
            err.println("error: " + FailureLine.of(e));
        }
        err.flush();
        return 1;
    }

    static Email email(CommandSpec spec, String value) {
        try {
            return new Email(value);
        } catch (DomainRuleViolation e) {
            throw new ParameterException(spec.commandLine(), "--email: " + e.getMessage());
        }
    }

    static KeyName name(CommandSpec spec, String value) {
        try {
            return KeyName.chosen(value);
        } catch (DomainRuleViolation e) {
            throw new ParameterException(spec.commandLine(), "--name: " + e.getMessage());
        }
    }

    /** Most a single credit may be: $1 billion (a typo of a few digits too many is refused, not booked). */
    static final BigDecimal MAX_CREDIT_DOLLARS = new BigDecimal("1000000000");
    /** Most a key's limit may be: as the API takes it ($1 trillion), so that one key can be made either way. */
    static final BigDecimal MAX_LIMIT_DOLLARS = new BigDecimal("1000000000000");

    /**
     * Plain ASCII decimals only: {@link BigDecimal} alone would also take {@code 1e3}, {@code +5} and other scripts'
     * digits, amounts an operator rarely means to type.
     */
    private static final java.util.regex.Pattern PLAIN_DECIMAL =
            java.util.regex.Pattern.compile("-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)");

    static Usd usd(CommandSpec spec, String option, String value, boolean mustBePositive, BigDecimal most) {
        try {
            if (!PLAIN_DECIMAL.matcher(value.strip()).matches()) {
                throw new NumberFormatException("not a plain decimal");
            }
            BigDecimal dollars = new BigDecimal(value.strip());
            if (dollars.compareTo(most) > 0) {
                throw new ParameterException(spec.commandLine(), option + " must be at most "
                        + most.toPlainString() + " USD");
            }
            if (dollars.signum() > 0 && dollars.stripTrailingZeros().scale() > 6) {
                throw new ParameterException(spec.commandLine(), option + " has more decimals than a micro-dollar "
                        + "(0.000001 USD, the smallest amount Tollgate books)");
            }
            Usd amount = Usd.ofDollars(dollars);
            if (mustBePositive && !amount.isPositive()) {
                throw new ParameterException(spec.commandLine(), option + " must be a positive USD amount");
            }
            return amount;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ParameterException(spec.commandLine(), option + " must be a USD amount such as 10 or 2.5");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
        }
    }

    /** Read as the API reads {@code expires_at} ({@link Rfc3339}), spaces around it aside. */
    static Instant timestamp(CommandSpec spec, String option, String value) {
        Instant instant;
        try {
            instant = Rfc3339.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new ParameterException(spec.commandLine(), option + " must be an ISO 8601 / RFC 3339 timestamp "
                    + "with a four-digit year and a time zone, of a date and time that exist, e.g. "
                    + "2030-01-31T00:00:00Z");
        }
        if (instant.isAfter(Rfc3339.LAST_INSTANT)) {
            throw new ParameterException(spec.commandLine(), option + " must lie before the year 10000 in UTC");
        }
        return instant;
    }

    /** {@code admin account …}. */
    @Command(name = "account", mixinStandardHelpOptions = true, description = "Manage accounts.",
            subcommands = {AccountCommands.Create.class, AccountCommands.Verify.class, AccountCommands.Credit.class})
    static final class AccountCommands extends CommandGroup {

        /** Prints the new account's id. */
        @Command(name = "create", mixinStandardHelpOptions = true, description = "Open an account; prints its id.")
        static final class Create implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            AccountCommands parent;
            @Option(names = "--email", required = true, description = "The account's e-mail address.")
            String email;
            @Option(names = "--verified", description = "Mark the e-mail as verified.")
            boolean verified;
            @Option(names = "--credit", description = "Opening prepaid balance in USD.", defaultValue = "0")
            String credit;

            @Override
            public Integer call() {
                var command = new OpenAccountCommand(email(spec, email), verified, usd(spec, "--credit", credit, false, MAX_CREDIT_DOLLARS));
                return parent.admin.execute(spec,
                        ctx -> ctx.getBean(OpenAccountUseCase.class).open(command).toString());
            }
        }

        /** Prints nothing. */
        @Command(name = "verify", mixinStandardHelpOptions = true, description = "Mark an account's e-mail verified.")
        static final class Verify implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            AccountCommands parent;
            @Option(names = "--email", required = true)
            String email;
            @Option(names = "--discard-signup", description = "Confirm an address whose dashboard sign-up waits "
                    + "for its mailed link, dropping that sign-up's password (the account then has none).")
            boolean discardSignUp;

            @Override
            public Integer call() {
                Email address = email(spec, email);
                return parent.admin.execute(spec, ctx -> {
                    ctx.getBean(ConfirmEmailByOperatorUseCase.class).confirm(address, discardSignUp);
                    return null;
                });
            }
        }

        /** Prints the balance after the credit, in USD. */
        @Command(name = "credit", mixinStandardHelpOptions = true,
                description = "Add prepaid funds; prints the new balance in USD.")
        static final class Credit implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            AccountCommands parent;
            @Option(names = "--email", required = true)
            String email;
            @Option(names = "--usd", required = true, description = "Amount in USD, e.g. 25 or 0.5.")
            String usd;

            @Override
            public Integer call() {
                Email address = email(spec, email);
                Usd amount = usd(spec, "--usd", usd, true, MAX_CREDIT_DOLLARS);
                return parent.admin.execute(spec, ctx -> ctx.getBean(CreditAccountUseCase.class)
                        .credit(address, amount).toDollars().toPlainString());
            }
        }
    }

    /** {@code admin management-key …}. */
    @Command(name = "management-key", mixinStandardHelpOptions = true, description = "Manage management keys.",
            subcommands = {ManagementKeyCommands.Create.class, ManagementKeyCommands.Disable.class})
    static final class ManagementKeyCommands extends CommandGroup {

        /** Prints the raw gpm- key: the only time it is shown. */
        @Command(name = "create", mixinStandardHelpOptions = true,
                description = "Create a management key; prints the raw gpm- key (shown once).")
        static final class Create implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            ManagementKeyCommands parent;
            @Option(names = "--email", required = true)
            String email;
            @Option(names = "--name", required = true)
            String name;
            @Option(names = "--access", defaultValue = "read_write", description = "read_only or read_write.")
            String access;
            @Option(names = "--expires-at", description = "ISO 8601 timestamp with a zone.")
            String expiresAt;

            @Override
            public Integer call() {
                ManagementAccess mode = ManagementAccess.fromWireName(access.toLowerCase(Locale.ROOT))
                        .orElseThrow(() -> new ParameterException(spec.commandLine(),
                                "--access must be read_only or read_write"));
                var command = new CreateManagementKeyCommand(email(spec, email), name(spec, name), mode,
                        expiresAt == null ? null : timestamp(spec, "--expires-at", expiresAt));
                return parent.admin.execute(spec, ctx -> ctx.getBean(CreateManagementKeyUseCase.class)
                        .create(command).rawKey().reveal());
            }
        }

        /** Prints nothing. */
        @Command(name = "disable", mixinStandardHelpOptions = true, description = "Disable a management key.")
        static final class Disable implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            ManagementKeyCommands parent;
            @Option(names = "--email", required = true)
            String email;
            @Option(names = "--name", required = true)
            String name;

            @Override
            public Integer call() {
                Email address = email(spec, email);
                KeyName keyName = name(spec, name);
                return parent.admin.execute(spec, ctx -> {
                    ctx.getBean(DisableManagementKeyUseCase.class).disable(address, keyName);
                    return null;
                });
            }
        }
    }

    /** {@code admin api-key …}. */
    @Command(name = "api-key", mixinStandardHelpOptions = true, description = "Manage regular API keys.",
            subcommands = {ApiKeyCommands.Create.class})
    static final class ApiKeyCommands extends CommandGroup {

        /** Prints the raw gp- key: the only time it is shown. */
        @Command(name = "create", mixinStandardHelpOptions = true,
                description = "Create a regular key; prints the raw gp- key (shown once).")
        static final class Create implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @ParentCommand
            ApiKeyCommands parent;
            @Option(names = "--email", required = true)
            String email;
            @Option(names = "--name", required = true)
            String name;
            @Option(names = "--limit", description = "Spend cap in USD.")
            String limit;
            @Option(names = "--limit-reset", description = "daily, weekly or monthly (needs --limit).")
            String limitReset;
            @Option(names = "--expires-at", description = "ISO 8601 timestamp with a zone.")
            String expiresAt;

            @Override
            public Integer call() {
                Email address = email(spec, email);
                if (limitReset != null && limit == null) {
                    throw new ParameterException(spec.commandLine(), "--limit-reset needs --limit (§4.1 rule 2)");
                }
                LimitReset reset = limitReset == null ? null
                        : LimitReset.fromWireName(limitReset.toLowerCase(Locale.ROOT)).orElseThrow(() ->
                                new ParameterException(spec.commandLine(),
                                        "--limit-reset must be daily, weekly or monthly"));
                var command = new CreateApiKeyCommand(name(spec, name),
                        limit == null ? null : usd(spec, "--limit", limit, true, MAX_LIMIT_DOLLARS), reset,
                        expiresAt == null ? null : timestamp(spec, "--expires-at", expiresAt));
                return parent.admin.execute(spec, ctx -> {
                    var account = ctx.getBean(FindAccountUseCase.class).byEmail(address);
                    return ctx.getBean(CreateApiKeyUseCase.class)
                            .create(ManagementPrincipal.operator(account.id()), command).rawKey().reveal();
                });
            }
        }
    }
}
