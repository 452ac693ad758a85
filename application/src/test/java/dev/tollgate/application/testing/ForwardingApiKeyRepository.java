package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.ApiKeyRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.shared.KeyHash;
import java.util.List;
import java.util.Optional;

/** Test fixture: an {@link ApiKeyRepository} that passes every call on; tests override what they want to watch. */
public class ForwardingApiKeyRepository implements ApiKeyRepository {

    private final ApiKeyRepository delegate;

    public ForwardingApiKeyRepository(ApiKeyRepository delegate) {
        this.delegate = delegate;
    }

    @Override
    public void insert(ApiKey key) {
        delegate.insert(key);
    }

    @Override
    public Optional<ApiKey> findByHash(KeyHash hash) {
        return delegate.findByHash(hash);
    }

    @Override
    public Optional<ApiKey> lockByHash(KeyHash hash) {
        return delegate.lockByHash(hash);
    }

    @Override
    public List<ApiKey> listPage(AccountId accountId, boolean includeDisabled, int offset, int limit) {
        return delegate.listPage(accountId, includeDisabled, offset, limit);
    }

    @Override
    public void update(ApiKey key) {
        delegate.update(key);
    }
}
