package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * §8 as checks: which buckets a request is counted in, with which limits. The subjects are ids the caller
 * resolved (key id, account id, source IP, browser principal); where the counters live is the store's business.
 */
public final class TrafficRules {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final String ALL = "all";

    private final TrafficLimits limits;

    public TrafficRules(TrafficLimits limits) {
        this.limits = Objects.requireNonNull(limits);
    }

    public TrafficLimits limits() {
        return limits;
    }

    /**
     * What an authenticated model request does to the limits. A chat completion ({@code shape} present) also takes
     * key and account slots, counts its estimated tokens and feeds the behavioural cooldown; the model list
     * ({@code shape} null) is counted in the request buckets only.
     */
    public TrafficDemand modelRequest(Caller caller, Shape shape) {
        List<QuotaCheck> checks = new ArrayList<>(16);
        List<Bucket> cooldownScopes = authenticatedChecks(caller, shape, checks);
        BehaviourSample sample = shape == null ? null
                : new BehaviourSample(new Bucket(LimitScope.KEY_IP_MODEL, caller.keyId() + '@' + caller.ip() + '@'
                        + shape.model(), "calls"), shape.fingerprint().hash(),
                        shape.fingerprint().minimal(limits.minimalWords(), shape.maxTokens()), limits.behaviour());
        return new TrafficDemand(checks, cooldownScopes, limits.cooldown(), sample);
    }

    /**
     * §8.2 user-billed playground: the §8.1 buckets of the caller's key plus a few in flight per principal — and,
     * being public playground traffic too, the caps of all playground traffic together, which it shares with the
     * anonymous requests.
     */
    public TrafficDemand userPlayground(Caller caller, Shape shape) {
        TrafficDemand v1 = modelRequest(caller, shape);
        List<QuotaCheck> checks = new ArrayList<>(v1.checks());
        checks.add(new QuotaCheck.Concurrency(new Bucket(LimitScope.PRINCIPAL, "key:" + caller.keyId(), "inflight"),
                limits.playground().userConcurrency()));
        allPlayground(checks, shape.estimatedTokens());
        return new TrafficDemand(checks, v1.cooldownScopes(), v1.cooldown(), v1.behaviour());
    }

    /**
     * §8.2 anonymous playground: per browser principal, per source IP and for all playground traffic together. The
     * principal's in-flight cap holds per source IP too, or a client sending no cookie (a new principal each time)
     * would run any number of streams at the operator's cost.
     */
    public TrafficDemand anonymousPlayground(String principal, String ip, long estimatedTokens) {
        TrafficLimits.PlaygroundLimits p = limits.playground();
        Bucket user = new Bucket(LimitScope.PRINCIPAL, principal, "rpm");
        Bucket address = new Bucket(LimitScope.PLAYGROUND_IP, ip, "rpm");
        List<QuotaCheck> checks = new ArrayList<>(List.of(
                new QuotaCheck.Requests(user, p.perMinute(), MINUTE, null),
                new QuotaCheck.Requests(user.withRule("rph"), p.perHour(), HOUR, null),
                new QuotaCheck.Requests(address, p.perMinute(), MINUTE, null),
                new QuotaCheck.Requests(address.withRule("rph"), p.perHour(), HOUR, null),
                new QuotaCheck.Concurrency(user.withRule("inflight"), p.principalConcurrency()),
                // A browser that drops its cookie is a new principal: the address holds as few in flight.
                new QuotaCheck.Concurrency(address.withRule("inflight"), p.principalConcurrency())));
        allPlayground(checks, estimatedTokens);
        return new TrafficDemand(checks, List.of(), limits.cooldown(), null);
    }

    /** §8.2 "all public playground traffic": requests per minute, in flight and estimated tokens per minute. */
    private void allPlayground(List<QuotaCheck> checks, long estimatedTokens) {
        TrafficLimits.PlaygroundLimits p = limits.playground();
        Bucket all = new Bucket(LimitScope.PLAYGROUND, ALL, "rpm");
        checks.add(new QuotaCheck.Requests(all, p.allPerMinute(), MINUTE, null));
        checks.add(new QuotaCheck.Concurrency(all.withRule("inflight"), p.allConcurrency()));
        // Estimates: the operator pays for the anonymous traffic, and the budget bounds what the route asks of the
        // providers whoever pays, so it refuses.
        checks.add(new QuotaCheck.Tokens(all.withRule("tpm"), p.allTokensPerMinute(), estimatedTokens, MINUTE, true));
    }

    private List<Bucket> authenticatedChecks(Caller caller, Shape shape, List<QuotaCheck> checks) {
        Bucket key = new Bucket(LimitScope.KEY, caller.keyId(), "rpm");
        Bucket keyIp = new Bucket(LimitScope.KEY_IP, caller.keyId() + '@' + caller.ip(), "rpm");
        Bucket account = new Bucket(LimitScope.ACCOUNT, caller.accountId(), "rpm");
        Bucket ip = new Bucket(LimitScope.IP, caller.ip(), "rpm");
        requests(checks, key, limits.key(), key);
        requests(checks, keyIp, limits.keyIp(), keyIp);
        requests(checks, account, limits.account(), account);
        requests(checks, ip, limits.ip(), null);
        checks.add(new QuotaCheck.Distinct(key.withRule("ips"), caller.ip(), limits.distinctIpsPerKey(),
                limits.distinctWindow()));
        checks.add(new QuotaCheck.Distinct(ip.withRule("keys"), caller.keyId(), limits.distinctKeysPerIp(),
                limits.distinctWindow()));
        if (shape != null) {
            checks.add(new QuotaCheck.Concurrency(key.withRule("inflight"), limits.keyConcurrency()));
            checks.add(new QuotaCheck.Concurrency(account.withRule("inflight"), limits.accountConcurrency()));
            long tokens = shape.estimatedTokens();
            checks.add(new QuotaCheck.Tokens(key.withRule("tpm"), limits.keyTokens(), tokens, MINUTE, false));
            checks.add(new QuotaCheck.Tokens(keyIp.withRule("tpm"), limits.keyTokens(), tokens, MINUTE, false));
            checks.add(new QuotaCheck.Tokens(account.withRule("tpm"), limits.accountTokens(), tokens, MINUTE, false));
            checks.add(new QuotaCheck.Tokens(ip.withRule("tpm"), limits.accountTokens(), tokens, MINUTE, false));
        }
        return List.of(keyIp, key, account);
    }

    /**
     * A subject's minute window and, right after it, its burst window: every demand that counts a subject in one
     * counts it in the other, so the burst window's admissions are always the minute window's newest ones. Stores
     * may rely on that (the Redis store keeps one log for both).
     */
    private void requests(List<QuotaCheck> checks, Bucket perMinute, TrafficLimits.RequestRate rate,
            Bucket cooldownScope) {
        checks.add(new QuotaCheck.Requests(perMinute, rate.perMinute(), MINUTE, cooldownScope));
        checks.add(new QuotaCheck.Requests(perMinute.withRule("burst"), rate.perBurst(), limits.burstWindow(),
                cooldownScope));
    }

    /** Who sends an authenticated request: key and account ids, and the resolved source IP. */
    public record Caller(String keyId, String accountId, String ip) {
        public Caller {
            Objects.requireNonNull(keyId);
            Objects.requireNonNull(accountId);
            Objects.requireNonNull(ip);
        }
    }

    /**
     * What a chat request looks like to the limits: its model, estimated tokens (prompt plus output allowance),
     * prompt fingerprint and {@code max_tokens}.
     */
    public record Shape(String model, long estimatedTokens, PromptFingerprint fingerprint, Integer maxTokens) {
        public Shape {
            Objects.requireNonNull(model);
            Objects.requireNonNull(fingerprint);
        }
    }
}
