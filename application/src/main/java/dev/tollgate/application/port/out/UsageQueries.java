package dev.tollgate.application.port.out;

import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * Out port: read-only questions about an account's settled requests (one ledger row each). A request belongs to the
 * time it was admitted — the instant its hold was placed, the same instant that puts its spend into a key's
 * daily, weekly and monthly window — and days are UTC days. Aggregation happens in the store.
 */
public interface UsageQueries {

    /** Which requests to count: all of the account's, or only one key's, one model's, or both. */
    record Filter(ApiKeyId key, String model) {

        public static final Filter ALL = new Filter(null, null);
    }

    /** One UTC day of an account's requests: what they cost and how many tokens they used. */
    record DailyUsage(LocalDate day, Usd spend, long promptTokens, long completionTokens, long requests) {

        public DailyUsage {
            Objects.requireNonNull(day);
            Objects.requireNonNull(spend);
        }

        public long totalTokens() {
            return promptTokens + completionTokens;
        }
    }

    /** One settled request, with the name and label of its key (deleted keys included). */
    record Activity(String requestId, Instant admittedAt, Instant finishedAt, ApiKeyId keyId, String keyName,
            String keyLabel, String model, String provider, long promptTokens, long completionTokens, Usd cost,
            String status, Long latencyMillis) {

        public Activity {
            Objects.requireNonNull(requestId);
            Objects.requireNonNull(admittedAt);
            Objects.requireNonNull(cost);
        }
    }

    /** Days in {@code [from, to)} with at least one matching request, oldest first. */
    List<DailyUsage> daily(AccountId account, Filter filter, Instant from, Instant to);

    /** Matching requests, newest first (ties: request id, descending). */
    List<Activity> activity(AccountId account, Filter filter, int offset, int limit);

    /** The models the account's requests used, in alphabetical order. */
    List<String> models(AccountId account);

    /** What all the account's settled requests cost. */
    Usd totalSpend(AccountId account);
}
