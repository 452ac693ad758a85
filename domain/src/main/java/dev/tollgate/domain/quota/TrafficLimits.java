package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Objects;

/**
 * The numbers of §8, all configurable; {@link #DEFAULTS} are the spec's values.
 *
 * @param key                 §8.1 regular key: 600 per minute, 200 per burst window
 * @param keyIp               regular key plus source IP: 600, 200
 * @param account             owning account: 3,000, 1,000
 * @param ip                  source IP: 3,000, 1,000
 * @param burstWindow         the separate burst window: 10 s
 * @param keyConcurrency      requests in flight per key: 50
 * @param accountConcurrency  requests in flight per account: 200
 * @param distinctIpsPerKey   distinct source IPs per key per {@code distinctWindow}: 200
 * @param distinctKeysPerIp   distinct keys per source IP per {@code distinctWindow}: 200
 * @param distinctWindow      one hour
 * @param keyTokens           estimated tokens per minute, key and key plus IP (reported, never blocking): 2,000,000
 * @param accountTokens       estimated tokens per minute, account and source IP (reported only): 10,000,000
 * @param cooldown            local request-limit cooldown
 * @param behaviour           behavioural cooldown
 * @param minimalWords        prompts of at most this many words are minimal (behavioural cooldown)
 * @param playground          §8.2
 */
public record TrafficLimits(RequestRate key, RequestRate keyIp, RequestRate account, RequestRate ip,
        Duration burstWindow, long keyConcurrency, long accountConcurrency, long distinctIpsPerKey,
        long distinctKeysPerIp, Duration distinctWindow, long keyTokens, long accountTokens, CooldownRule cooldown,
        BehaviourRule behaviour, int minimalWords, PlaygroundLimits playground) {

    public static final TrafficLimits DEFAULTS = new TrafficLimits(new RequestRate(600, 200),
            new RequestRate(600, 200), new RequestRate(3_000, 1_000), new RequestRate(3_000, 1_000),
            Duration.ofSeconds(10), 50, 200, 200, 200, Duration.ofHours(1), 2_000_000, 10_000_000,
            CooldownRule.DEFAULT, BehaviourRule.DEFAULT, 2, PlaygroundLimits.DEFAULTS);

    public TrafficLimits {
        Objects.requireNonNull(key);
        Objects.requireNonNull(keyIp);
        Objects.requireNonNull(account);
        Objects.requireNonNull(ip);
        Objects.requireNonNull(burstWindow);
        Objects.requireNonNull(distinctWindow);
        Objects.requireNonNull(cooldown);
        Objects.requireNonNull(behaviour);
        Objects.requireNonNull(playground);
        positive("burst window", burstWindow.toMillis());
        positive("distinct window", distinctWindow.toMillis());
        positive("key concurrency", keyConcurrency);
        positive("account concurrency", accountConcurrency);
        positive("distinct IPs per key", distinctIpsPerKey);
        positive("distinct keys per IP", distinctKeysPerIp);
        positive("key tokens per minute", keyTokens);
        positive("account tokens per minute", accountTokens);
        if (minimalWords < 0) {
            throw new IllegalArgumentException("minimal words must not be negative");
        }
    }

    /** The same limits with another request-limit cooldown. */
    public TrafficLimits withCooldown(CooldownRule other) {
        return new TrafficLimits(key, keyIp, account, ip, burstWindow, keyConcurrency, accountConcurrency,
                distinctIpsPerKey, distinctKeysPerIp, distinctWindow, keyTokens, accountTokens, other, behaviour,
                minimalWords, playground);
    }

    /** Requests per minute and per burst window of one scope. */
    public record RequestRate(long perMinute, long perBurst) {
        public RequestRate {
            positive("requests per minute", perMinute);
            positive("requests per burst", perBurst);
        }
    }

    /**
     * §8.2: anonymous users 20 per minute and 50 per hour per browser principal and per source IP, 2 in flight per
     * principal (and per source IP); all playground traffic 10,000 per minute, 10,000,000 estimated tokens per minute, 1,000 in
     * flight; an authenticated (user-billed) principal 4 in flight on top of the §8.1 buckets.
     */
    public record PlaygroundLimits(long perMinute, long perHour, long principalConcurrency, long allPerMinute,
            long allTokensPerMinute, long allConcurrency, long userConcurrency) {

        public static final PlaygroundLimits DEFAULTS = new PlaygroundLimits(20, 50, 2, 10_000, 10_000_000, 1_000,
                4);

        public PlaygroundLimits {
            positive("playground requests per minute", perMinute);
            positive("playground requests per hour", perHour);
            positive("playground concurrency per principal", principalConcurrency);
            positive("playground requests per minute in all", allPerMinute);
            positive("playground tokens per minute in all", allTokensPerMinute);
            positive("playground concurrency in all", allConcurrency);
            positive("user-billed playground concurrency", userConcurrency);
        }
    }

    static void positive(String what, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + value);
        }
    }
}
