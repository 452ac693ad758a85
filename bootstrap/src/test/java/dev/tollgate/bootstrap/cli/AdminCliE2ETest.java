package dev.tollgate.bootstrap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.out.persistence.testing.TestDatabase;
import dev.tollgate.application.port.in.auth.AuthenticateManagementKeyUseCase;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.bootstrap.TollgateApplication;
import dev.tollgate.domain.account.Email;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.managementkey.ManagementAccess;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.context.ApplicationContext;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

/**
 * The operator CLI exactly as scripts call it ({@code tollgate admin …}), against a real PostgreSQL chosen the way
 * the jar chooses it (here through the {@code datasources.default.url} system property).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminCliE2ETest {

    private static final String[] DATASOURCE_PROPERTIES = {"datasources.default.url", "datasources.default.username",
            "datasources.default.password"};
    private ApplicationContext context;

    private record Run(int exit, String out, String err) {
    }

    @BeforeAll
    void pointTheCliAtTheTestDatabase() {
        Map<String, Object> db = TestDatabase.properties();
        for (String name : DATASOURCE_PROPERTIES) {
            System.setProperty(name, String.valueOf(db.get(name)));
        }
        context = ApplicationContext.run(db);
    }

    @AfterAll
    void cleanUp() {
        for (String name : DATASOURCE_PROPERTIES) {
            System.clearProperty(name);
        }
        context.close();
    }

    private static Run tollgate(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new TollgateApplication()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static String uniqueEmail() {
        return "cli-" + UUID.randomUUID() + "@example.test";
    }

    /**
     * A command whose key pepper is not the one the stored keys were issued with stops before it does anything,
     * naming the variable (an audit, 2026-11-29: it printed keys that never worked).
     */
    @Test
    void aCommandWithAnotherKeyPepperStopsNamingTheVariable() {
        String email = uniqueEmail();
        System.setProperty("tollgate.key-pepper", "not-the-deployments-pepper-0123456789");
        Run refused;
        try {
            refused = tollgate("admin", "account", "create", "--email", email);
        } finally {
            System.clearProperty("tollgate.key-pepper");
        }
        assertEquals(1, refused.exit(), refused.err());
        assertTrue(refused.err().contains("TOLLGATE_KEY_PEPPER"), refused.err());
        assertTrue(refused.out().isEmpty(), refused.out());
        assertEquals(0, tollgate("admin", "account", "create", "--email", email).exit(),
                "nothing was created by the refused command; the same pepper as the keys' works");
    }

    @Test
    void accountCreatePrintsOnlyTheAccountId() {
        Run run = tollgate("admin", "account", "create", "--email", uniqueEmail(), "--verified", "--credit", "10");
        assertEquals(0, run.exit(), run.err());
        UUID.fromString(run.out().strip());
        assertEquals(1, run.out().lines().count());
    }

    @Test
    void aSecondAccountWithTheSameEmailFailsWithExitCode1() {
        String email = uniqueEmail();
        assertEquals(0, tollgate("admin", "account", "create", "--email", email).exit());
        Run again = tollgate("admin", "account", "create", "--email", email.toUpperCase());
        assertEquals(1, again.exit());
        assertEquals("", again.out());
        assertTrue(again.err().contains("exists already"), again.err());
    }

    @Test
    void creditPrintsTheNewBalanceExactly() {
        String email = uniqueEmail();
        tollgate("admin", "account", "create", "--email", email, "--credit", "0.1");
        Run run = tollgate("admin", "account", "credit", "--email", email, "--usd", "0.2");
        assertEquals(0, run.exit(), run.err());
        assertEquals("0.3", run.out().strip());
        assertEquals(Usd.ofMicros(300_000), context.getBean(AccountRepository.class).findByEmail(new Email(email))
                .orElseThrow().balance());
        assertEquals(2, tollgate("admin", "account", "credit", "--email", email, "--usd", "-1").exit());
        assertEquals(2, tollgate("admin", "account", "credit", "--email", email, "--usd", "lots").exit());
        assertEquals(1, tollgate("admin", "account", "credit", "--email", uniqueEmail(), "--usd", "1").exit());
    }

    @Test
    void amountsBeyondAMicroDollarOrABillionAndALimitResetAloneAreBadArguments() {
        String email = uniqueEmail();
        for (String credit : new String[] {"9223372036854", "0.0000001", "0.0000015", "1000000000.01"}) {
            Run refused = tollgate("admin", "account", "create", "--email", email, "--credit", credit);
            assertEquals(2, refused.exit(), credit + ": " + refused.err());
            assertEquals("", refused.out());
        }
        assertEquals(0, tollgate("admin", "account", "create", "--email", email, "--verified").exit());
        assertEquals(2, tollgate("admin", "account", "credit", "--email", email, "--usd", "0.0000019").exit());
        // An operator audit: an exponent, a sign or another script's digits were booked as written.
        for (String odd : new String[] {"1e3", "+5", "\uFF15", "\u0665", "0x10", "1,5", ""}) {
            Run refused = tollgate("admin", "account", "credit", "--email", email, "--usd", odd);
            assertEquals(2, refused.exit(), odd + ": " + refused.err());
            assertTrue(refused.err().contains("--usd must be a USD amount such as 10 or 2.5"), refused.err());
        }
        assertTrue(tollgate("admin", "account", "credit", "--email", email, "--usd", ".5").out().contains("0.5"));
        Run reset = tollgate("admin", "api-key", "create", "--email", email, "--name", "k", "--limit-reset", "daily");
        assertEquals(2, reset.exit(), reset.err());
        assertTrue(reset.err().contains("--limit-reset needs --limit"), reset.err());
        // A key's limit is bounded as the API bounds it ($1 trillion), not as a credit is (a docs audit).
        assertEquals(0, tollgate("admin", "api-key", "create", "--email", email, "--name", "big", "--limit",
                "1000000000000").exit());
        Run over = tollgate("admin", "api-key", "create", "--email", email, "--name", "bigger", "--limit",
                "1000000000000.01");
        assertEquals(2, over.exit(), over.err());
        assertTrue(over.err().contains("--limit must be at most 1000000000000 USD"), over.err());
        assertEquals("Tollgate 0.1.0", tollgate("admin", "-V").out().strip());
    }

    @Test
    void managementKeysNeedAVerifiedAccountAndAuthenticateUntilDisabled() {
        String email = uniqueEmail();
        tollgate("admin", "account", "create", "--email", email);
        Run refused = tollgate("admin", "management-key", "create", "--email", email, "--name", "ops");
        assertEquals(1, refused.exit());
        assertTrue(refused.err().contains("Please verify your email address"), refused.err());

        assertEquals(0, tollgate("admin", "account", "verify", "--email", email).exit());

        // A dashboard sign-up waiting for its link: whoever chose its password must not get the account confirmed.
        String pending = uniqueEmail();
        context.getBean(dev.tollgate.application.port.in.account.SignUpUseCase.class).signUp(
                new dev.tollgate.application.port.in.account.SignUpCommand(
                        new dev.tollgate.domain.account.Email(pending), "a password someone chose", "127.0.0.1"));
        Run waiting = tollgate("admin", "account", "verify", "--email", pending);
        assertEquals(1, waiting.exit());
        assertTrue(waiting.err().contains("--discard-signup"), waiting.err());
        assertEquals(0, tollgate("admin", "account", "verify", "--email", pending, "--discard-signup").exit());

        Run created = tollgate("admin", "management-key", "create", "--email", email, "--name", "ops");
        assertEquals(0, created.exit(), created.err());
        String gpm = created.out().strip();
        assertTrue(RawKey.parse(gpm, KeyKind.MANAGEMENT).isPresent(), gpm);
        AuthenticateManagementKeyUseCase auth = context.getBean(AuthenticateManagementKeyUseCase.class);
        assertEquals(ManagementAccess.READ_WRITE, auth.authenticate(gpm).access());

        Run readOnly = tollgate("admin", "management-key", "create", "--email", email, "--name", "viewer",
                "--access", "read_only");
        ManagementPrincipal viewer = auth.authenticate(readOnly.out().strip());
        assertEquals(ManagementAccess.READ_ONLY, viewer.access());

        assertEquals(1, tollgate("admin", "management-key", "create", "--email", email, "--name", "ops").exit(),
                "names are unique per account");
        assertEquals(0, tollgate("admin", "management-key", "disable", "--email", email, "--name", "ops").exit());
        assertThrows(InvalidManagementKeyException.class, () -> auth.authenticate(gpm));
        assertEquals(1, tollgate("admin", "management-key", "disable", "--email", email, "--name", "nope").exit());
    }

    @Test
    void apiKeyCreatePrintsTheRawKeyAndStoresOnlyItsHash() {
        String email = uniqueEmail();
        tollgate("admin", "account", "create", "--email", email, "--verified");
        Run run = tollgate("admin", "api-key", "create", "--email", email, "--name", "batch", "--limit", "5",
                "--limit-reset", "monthly", "--expires-at", "2031-01-01T00:00:00Z");
        assertEquals(0, run.exit(), run.err());
        String gp = run.out().strip();
        RawKey raw = RawKey.parse(gp, KeyKind.REGULAR).orElseThrow();
        var stored = context.getBean(ApiKeyRepository.class).findByHash(KeyHasher.sha256().hash(raw)).orElseThrow();
        assertEquals("batch", stored.name().value());
        assertEquals(Optional.of(new SpendLimit(Usd.ofMicros(5_000_000), LimitReset.MONTHLY)), stored.limit());

        Run past = tollgate("admin", "api-key", "create", "--email", email, "--name", "x", "--expires-at",
                "2001-01-01T00:00:00Z");
        assertEquals(2, past.exit(), past.err());
        assertTrue(past.err().contains("--expires-at: expires_at must be in the future"), past.err());
        assertTrue(past.err().contains("Usage:"), past.err());
        assertEquals("", past.out());
        Run pastManagement = tollgate("admin", "management-key", "create", "--email", email, "--name", "x",
                "--expires-at", "2001-01-01T00:00:00Z");
        assertEquals(2, pastManagement.exit(), pastManagement.err());
        assertTrue(pastManagement.err().contains("--expires-at:"), pastManagement.err());

        // An audit: the CLI refused the RFC 3339 leap second the API takes; both read the timestamp one way now.
        Run leap = tollgate("admin", "api-key", "create", "--email", email, "--name", "leap", "--expires-at",
                "2030-06-30T23:59:60Z");
        assertEquals(0, leap.exit(), leap.err());
        Run noLeap = tollgate("admin", "api-key", "create", "--email", email, "--name", "x", "--expires-at",
                "2030-06-15T23:59:60Z");
        assertEquals(2, noLeap.exit(), noLeap.err());
        assertTrue(noLeap.err().contains("--expires-at must be an ISO 8601 / RFC 3339 timestamp"), noLeap.err());
    }

    @Test
    void badArgumentsPrintUsageAndExit2() {
        for (String[] args : new String[][] {
                {"admin"},
                {"admin", "account"},
                {"admin", "account", "create"},
                {"admin", "account", "create", "--email", "not-an-email"},
                {"admin", "api-key", "create", "--email", "a@b.co", "--name", "x", "--limit-reset", "hourly"},
                {"admin", "api-key", "create", "--email", "a@b.co", "--name", "x", "--limit", "0"},
                {"admin", "management-key", "create", "--email", "a@b.co", "--name", "x", "--access", "admin"},
                {"admin", "management-key", "create", "--email", "a@b.co", "--name", "x", "--expires-at", "tomorrow"},
                {"admin", "frobnicate"},
                {"frobnicate"}}) {
            Run run = tollgate(args);
            assertEquals(2, run.exit(), String.join(" ", args) + " -> " + run.err());
            assertEquals("", run.out(), String.join(" ", args));
            assertTrue(run.err().contains("Usage:"), String.join(" ", args) + " -> " + run.err());
        }
    }
}
