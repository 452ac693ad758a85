package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import dev.tollgate.domain.spend.SpendWindows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** In-memory fake of {@link KeySpendRepository}: keeps every charge and sums the windows on read. */
public final class InMemoryKeySpendRepository implements KeySpendRepository {

    private record Charge(ApiKeyId key, Usd amount, Instant at) {
    }

    private final List<Charge> charges = new ArrayList<>();

    @Override
    public synchronized Map<ApiKeyId, KeyUsage> usageAt(Collection<ApiKeyId> keys, Instant at) {
        Map<ApiKeyId, KeyUsage> result = new HashMap<>();
        for (ApiKeyId key : keys) {
            result.put(key, new KeyUsage(sum(key, null, at), sum(key, LimitReset.DAILY, at),
                    sum(key, LimitReset.WEEKLY, at), sum(key, LimitReset.MONTHLY, at)));
        }
        return result;
    }

    private Usd sum(ApiKeyId key, LimitReset period, Instant at) {
        Usd total = Usd.ZERO;
        for (Charge c : charges) {
            boolean counts = c.key().equals(key) && (period == null
                    || SpendWindows.windowStart(period, c.at()).equals(SpendWindows.windowStart(period, at)));
            if (counts) {
                total = total.plus(c.amount());
            }
        }
        return total;
    }

    @Override
    public synchronized void record(ApiKeyId key, Usd amount, Instant at) {
        charges.add(new Charge(key, amount, at));
    }
}
