package dev.tollgate.application.service.auth;

import dev.tollgate.application.port.in.auth.AuthenticateManagementKeyUseCase;
import dev.tollgate.application.port.in.auth.EmailNotVerifiedException;
import dev.tollgate.application.port.in.auth.InvalidManagementKeyException;
import dev.tollgate.application.port.in.auth.ManagementPrincipal;
import dev.tollgate.application.port.out.AccountRepository;
import dev.tollgate.application.port.out.ManagementKeyRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.managementkey.ManagementKey;
import dev.tollgate.domain.managementkey.ManagementKeyState;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;
import java.time.Instant;

/** Service: §5 authentication of management keys. A malformed key is refused before any store lookup. */
public final class AuthenticateManagementKeyService implements AuthenticateManagementKeyUseCase {

    private final ManagementKeyRepository managementKeys;
    private final AccountRepository accounts;
    private final KeyHasher hasher;
    private final ManagementKeyUsage usage;
    private final Clock clock;

    public AuthenticateManagementKeyService(ManagementKeyRepository managementKeys, AccountRepository accounts,
            KeyHasher hasher, ManagementKeyUsage usage, Clock clock) {
        this.managementKeys = managementKeys;
        this.accounts = accounts;
        this.hasher = hasher;
        this.usage = usage;
        this.clock = clock;
    }

    @Override
    public ManagementPrincipal authenticate(String bearerToken) {
        RawKey raw = RawKey.parse(bearerToken, KeyKind.MANAGEMENT).orElseThrow(InvalidManagementKeyException::new);
        Instant now = clock.instant();
        ManagementKey key = managementKeys.findByHash(hasher.hash(raw))
                .filter(k -> k.state(now) == ManagementKeyState.ACTIVE)
                .orElseThrow(InvalidManagementKeyException::new);
        Account account = accounts.findById(key.accountId()).orElseThrow(InvalidManagementKeyException::new);
        if (!account.emailVerified()) {
            throw new EmailNotVerifiedException();
        }
        usage.used(key, now);
        return new ManagementPrincipal(account.id(), key.access());
    }
}
