package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.KeyHasher;
import dev.tollgate.domain.shared.KeyKind;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.RawKey;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link KeySpendRepository}: windows are UTC day, ISO week from Monday, UTC month (§2.1). */
public abstract class AbstractKeySpendRepositoryContractTest {

    // Sunday 2026-05-31 23:59:59.999 UTC: the last millisecond of a day, a week and a month at once.
    private static final Instant END_OF_MAY = Instant.parse("2026-05-31T23:59:59.999Z");
    private static final SecureRandom RANDOM = new SecureRandom();
    private PersistenceStores stores;
    private KeySpendRepository spend;
    private ApiKey key;

    protected abstract PersistenceStores stores();

    @BeforeEach
    public void setUp() {
        stores = stores();
        spend = stores.spend();
        Account account = stores.newAccount(Instant.parse("2026-01-01T00:00:00Z"));
        RawKey raw = RawKey.generate(KeyKind.REGULAR, RANDOM);
        key = ApiKey.issue(account.id(), KeyHasher.sha256().hash(raw), raw.label(), new KeyName("spender"), null,
                null, null, Instant.parse("2026-01-01T00:00:00Z"));
        stores.apiKeys().insert(key);
    }

    private KeyUsage usageAt(Instant at) {
        return spend.usageAt(List.of(key.id()), at).get(key.id());
    }

    @Test
    public void aKeyWithoutChargesHasNoUsage() {
        assertEquals(KeyUsage.NONE, usageAt(END_OF_MAY));
        ApiKeyId unknown = ApiKeyId.newId();
        Map<ApiKeyId, KeyUsage> usage = spend.usageAt(List.of(unknown), END_OF_MAY);
        assertEquals(KeyUsage.NONE, usage.getOrDefault(unknown, KeyUsage.NONE));
    }

    @Test
    public void chargesCountInTheWindowsThatContainThemAndResetExactlyAtTheBoundary() {
        spend.record(key.id(), Usd.ofMicros(1_000_000), Instant.parse("2026-05-01T00:00:00Z")); // Friday, 1st
        spend.record(key.id(), Usd.ofMicros(200_000), Instant.parse("2026-05-25T00:00:00Z")); // Monday
        spend.record(key.id(), Usd.ofMicros(30_000), Instant.parse("2026-05-31T00:00:00Z")); // Sunday
        spend.record(key.id(), Usd.ofMicros(4), END_OF_MAY);

        assertEquals(new KeyUsage(Usd.ofMicros(1_230_004), Usd.ofMicros(30_004), Usd.ofMicros(230_004),
                Usd.ofMicros(1_230_004)), usageAt(END_OF_MAY));
        // One millisecond later a new day, week and month begin; the lifetime total stays.
        assertEquals(new KeyUsage(Usd.ofMicros(1_230_004), Usd.ZERO, Usd.ZERO, Usd.ZERO),
                usageAt(END_OF_MAY.plusMillis(1)));
    }

    @Test
    public void chargesAddUpExactlyToTheMicroDollar() {
        for (int i = 0; i < 100; i++) {
            spend.record(key.id(), Usd.ofMicros(1), END_OF_MAY);
        }
        assertEquals(Usd.ofMicros(100), usageAt(END_OF_MAY).daily());
    }
}
