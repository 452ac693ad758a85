package dev.tollgate.application.port.out;

import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/** Out port: what each regular key has spent, in total and per daily, weekly and monthly window. */
public interface KeySpendRepository {

    /** Usage of each key in the windows that contain {@code at}; keys with no spend map to {@link KeyUsage#NONE}. */
    Map<ApiKeyId, KeyUsage> usageAt(Collection<ApiKeyId> keys, Instant at);

    /** Adds a settled charge to the key's lifetime total and to each window containing {@code at}. */
    void record(ApiKeyId key, Usd amount, Instant at);
}
