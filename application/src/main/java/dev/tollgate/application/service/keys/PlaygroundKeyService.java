package dev.tollgate.application.service.keys;

import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.playground.PlaygroundKeyUnavailableException;
import dev.tollgate.application.port.in.playground.ResolvePlaygroundPrincipalUseCase;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.application.port.out.PlaygroundKeys;
import dev.tollgate.application.port.out.TransactionRunner;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.application.service.common.SecretIssuer;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyState;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Service: the account's "Dashboard playground" key. Found through the recent-keys cache on the common path; when
 * the account has none (or deleted it), one is issued under the account's row lock so that two first requests
 * cannot create two. Its raw secret is drawn and dropped: only the session can use it, through the playground.
 */
public final class PlaygroundKeyService implements ResolvePlaygroundPrincipalUseCase {

    private final AccountRepository accounts;
    private final ApiKeyRepository apiKeys;
    private final PlaygroundKeys playgroundKeys;
    private final TransactionRunner transactions;
    private final SecretIssuer secrets;
    private final RecentApiKeys recent;
    private final Clock clock;

    public PlaygroundKeyService(AccountRepository accounts, ApiKeyRepository apiKeys, PlaygroundKeys playgroundKeys,
            TransactionRunner transactions, SecretIssuer secrets, RecentApiKeys recent, Clock clock) {
        this.accounts = accounts;
        this.apiKeys = apiKeys;
        this.playgroundKeys = playgroundKeys;
        this.transactions = transactions;
        this.secrets = secrets;
        this.recent = recent;
        this.clock = clock;
    }

    @Override
    public ApiKeyPrincipal forSignedIn(Account account) {
        if (!account.emailVerified()) {
            throw new EmailNotVerifiedException();
        }
        ApiKey key = current(account).orElseGet(() -> transactions.inTransaction(() -> {
            accounts.lockById(account.id());
            return current(account).orElseGet(() -> issue(account));
        }));
        Instant now = clock.instant();
        ApiKeyState state = key.state(now);
        if (state != ApiKeyState.ENABLED) {
            throw new PlaygroundKeyUnavailableException();
        }
        return new ApiKeyPrincipal(key.id(), key.hash(), account.id());
    }

    private Optional<ApiKey> current(Account account) {
        return playgroundKeys.find(account.id())
                .flatMap(recent::find)
                .filter(key -> key.accountId().equals(account.id()))
                .filter(key -> key.deletedAt().isEmpty());
    }

    private ApiKey issue(Account account) {
        RawKey raw = secrets.draw(KeyKind.REGULAR);
        ApiKey key = ApiKey.issue(account.id(), secrets.hasher().hash(raw), raw.label(), new KeyName(KEY_NAME), null,
                null, null, clock.instant());
        apiKeys.insert(key);
        playgroundKeys.assign(account.id(), key.id(), key.hash());
        return key;
    }
}
