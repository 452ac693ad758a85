package dev.tollgate.application.service.completions;

import dev.tollgate.application.port.in.completions.ApiKeyPrincipal;
import dev.tollgate.application.port.in.completions.AuthenticateApiKeyUseCase;
import dev.tollgate.application.port.in.completions.InvalidApiKeyException;
import dev.tollgate.application.service.common.RecentApiKeys;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyState;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.RawKey;
import java.time.Clock;

/**
 * Service: §5 authentication of regular keys. Only an enabled key that is neither expired nor deleted passes; a
 * malformed key (or a {@code gpm-} key) is refused before any store lookup; known keys come from {@link RecentApiKeys}.
 */
public final class AuthenticateApiKeyService implements AuthenticateApiKeyUseCase {

    private final RecentApiKeys apiKeys;
    private final KeyHasher hasher;
    private final Clock clock;

    public AuthenticateApiKeyService(RecentApiKeys apiKeys, KeyHasher hasher, Clock clock) {
        this.apiKeys = apiKeys;
        this.hasher = hasher;
        this.clock = clock;
    }

    @Override
    public ApiKeyPrincipal authenticate(String bearerToken) {
        RawKey raw = RawKey.parse(bearerToken, KeyKind.REGULAR).orElseThrow(InvalidApiKeyException::new);
        ApiKey key = apiKeys.find(hasher.hash(raw))
                .filter(k -> k.state(clock.instant()) == ApiKeyState.ENABLED)
                .orElseThrow(InvalidApiKeyException::new);
        return new ApiKeyPrincipal(key.id(), key.hash(), key.accountId());
    }
}
