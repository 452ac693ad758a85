package dev.tollgate.bootstrap.wiring;

import dev.tollgate.adapter.out.persistence.billing.JdbcGatewayInstances;
import dev.tollgate.adapter.out.persistence.quota.FailoverQuotaCounter;
import dev.tollgate.adapter.out.persistence.quota.InProcessQuotaCounter;
import dev.tollgate.adapter.out.persistence.quota.RedisQuotaCounter;
import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.application.service.traffic.TrafficGuard;
import dev.tollgate.domain.quota.BehaviourRule;
import dev.tollgate.domain.quota.CooldownRule;
import dev.tollgate.domain.quota.StoreFailurePolicy;
import dev.tollgate.domain.quota.TrafficLimits;
import dev.tollgate.domain.quota.TrafficRules;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wiring: the §8 traffic limits — their numbers (every one a setting, the spec's values by default), the store
 * of their counters (this process, or Redis when {@code REDIS_URI} is set) and the guard in front of /v1.
 */
@Factory
public class TrafficFactory {

    private static final Logger LOG = LoggerFactory.getLogger(TrafficFactory.class);

    @Singleton
    TrafficLimits trafficLimits(
            @Value("${tollgate.limits.key.per-minute:600}") long keyPerMinute,
            @Value("${tollgate.limits.key.burst:200}") long keyBurst,
            @Value("${tollgate.limits.key.concurrency:50}") long keyConcurrency,
            @Value("${tollgate.limits.key-ip.per-minute:600}") long keyIpPerMinute,
            @Value("${tollgate.limits.key-ip.burst:200}") long keyIpBurst,
            @Value("${tollgate.limits.account.per-minute:3000}") long accountPerMinute,
            @Value("${tollgate.limits.account.burst:1000}") long accountBurst,
            @Value("${tollgate.limits.account.concurrency:200}") long accountConcurrency,
            @Value("${tollgate.limits.ip.per-minute:3000}") long ipPerMinute,
            @Value("${tollgate.limits.ip.burst:1000}") long ipBurst,
            @Value("${tollgate.limits.burst-window:10s}") Duration burstWindow,
            @Value("${tollgate.limits.distinct.ips-per-key:200}") long ipsPerKey,
            @Value("${tollgate.limits.distinct.keys-per-ip:200}") long keysPerIp,
            @Value("${tollgate.limits.distinct.window:1h}") Duration distinctWindow,
            @Value("${tollgate.limits.tokens.key-per-minute:2000000}") long keyTokens,
            @Value("${tollgate.limits.tokens.account-per-minute:10000000}") long accountTokens,
            @Value("${tollgate.limits.cooldown.blocks:3}") int cooldownBlocks,
            @Value("${tollgate.limits.cooldown.within:60s}") Duration cooldownWithin,
            @Value("${tollgate.limits.cooldown.duration:30s}") Duration cooldownDuration,
            @Value("${tollgate.limits.behaviour.identical:50}") int identical,
            @Value("${tollgate.limits.behaviour.minimal:100}") int minimal,
            @Value("${tollgate.limits.behaviour.within:60s}") Duration behaviourWithin,
            @Value("${tollgate.limits.behaviour.duration:60s}") Duration behaviourDuration,
            @Value("${tollgate.limits.behaviour.minimal-words:2}") int minimalWords,
            @Value("${tollgate.limits.playground.per-minute:20}") long playgroundPerMinute,
            @Value("${tollgate.limits.playground.per-hour:50}") long playgroundPerHour,
            @Value("${tollgate.limits.playground.concurrency:2}") long playgroundConcurrency,
            @Value("${tollgate.limits.playground.all-per-minute:10000}") long playgroundAllPerMinute,
            @Value("${tollgate.limits.playground.all-tokens-per-minute:10000000}") long playgroundAllTokens,
            @Value("${tollgate.limits.playground.all-concurrency:1000}") long playgroundAllConcurrency,
            @Value("${tollgate.limits.playground.user-concurrency:4}") long playgroundUserConcurrency) {
        return new TrafficLimits(new TrafficLimits.RequestRate(keyPerMinute, keyBurst),
                new TrafficLimits.RequestRate(keyIpPerMinute, keyIpBurst),
                new TrafficLimits.RequestRate(accountPerMinute, accountBurst),
                new TrafficLimits.RequestRate(ipPerMinute, ipBurst), burstWindow, keyConcurrency, accountConcurrency,
                ipsPerKey, keysPerIp, distinctWindow, keyTokens, accountTokens,
                new CooldownRule(cooldownBlocks, cooldownWithin, cooldownDuration),
                new BehaviourRule(identical, minimal, behaviourWithin, behaviourDuration), minimalWords,
                new TrafficLimits.PlaygroundLimits(playgroundPerMinute, playgroundPerHour, playgroundConcurrency,
                        playgroundAllPerMinute, playgroundAllTokens, playgroundAllConcurrency,
                        playgroundUserConcurrency));
    }

    @Singleton
    StoreFailurePolicy storeFailurePolicy(
            @Value("${tollgate.limits.on-store-failure.requests:local}") String requests,
            @Value("${tollgate.limits.on-store-failure.concurrency:local}") String concurrency,
            @Value("${tollgate.limits.on-store-failure.distinct:local}") String distinct,
            @Value("${tollgate.limits.on-store-failure.tokens:local}") String tokens,
            @Value("${tollgate.limits.on-store-failure.cooldowns:local}") String cooldowns) {
        return new StoreFailurePolicy(mode("requests", requests), mode("concurrency", concurrency),
                mode("distinct", distinct), mode("tokens", tokens), mode("cooldowns", cooldowns));
    }

    private static StoreFailurePolicy.Mode mode(String check, String value) {
        try {
            return StoreFailurePolicy.Mode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tollgate.limits.on-store-failure." + check + " must be 'local' or "
                    + "'closed', was '" + value + "'");
        }
    }

    /** The shared store when {@code REDIS_URI} is set; closed (its leases left to expire) on shutdown. */
    @Singleton
    @Requires(property = "redis.uri", pattern = ".+")
    @Bean(preDestroy = "close")
    RedisQuotaCounter redisQuotaCounter(@Value("${redis.uri}") String uri,
            @Value("${tollgate.redis.key-prefix:}") String prefix,
            @Value("${tollgate.redis.command-timeout:250ms}") Duration timeout,
            @Value("${tollgate.redis.slot-lease:30s}") Duration slotLease, Clock clock) {
        // The default lives here, not in the placeholder: a ':' inside a placeholder's default cuts it short.
        return RedisQuotaCounter.connect(uri, prefix.isEmpty() ? RedisQuotaCounter.DEFAULT_KEY_PREFIX : prefix,
                timeout, slotLease, clock);
    }

    /**
     * Where the counters live: in Redis behind the failure policy when one is configured, else in this process
     * (then the limits are per instance — fine for one instance, the embedded default).
     */
    @Context // connects (and says where the counters live) at start-up, not on the first request
    QuotaCounter quotaCounter(MeterRegistry registry, Optional<RedisQuotaCounter> redis, StoreFailurePolicy policy,
            JdbcGatewayInstances liveInstances,
            @Value("${tollgate.limits.failover.instances:0}") int instances,
            @Value("${tollgate.limits.failover.retry:1s}") Duration retry) {
        if (redis.isEmpty()) {
            LOG.info("Traffic limits: counters in this process (set REDIS_URI to share them between instances)");
            return new TimedQuotaCounter(new InProcessQuotaCounter(), registry, "in-process");
        }
        IntSupplier share = instances > 0 ? () -> instances : liveInstances;
        LOG.info("Traffic limits: counters in Redis at {}, shared by every instance; while it is unreachable: {}, "
                + "dividing limits by {}", redis.get().endpoint(), policy,
                instances > 0 ? instances + " instances" : "the live instances");
        return new TimedQuotaCounter(new FailoverQuotaCounter(redis.get(), new InProcessQuotaCounter(), policy, share,
                liveInstances, retry), registry, "redis");
    }

    @Singleton
    TrafficGuard trafficGuard(TrafficLimits limits, QuotaCounter counter, Clock clock, MeterRegistry registry,
            @Value("${tollgate.limits.enabled:true}") String enabledSetting) {
        // Strictly true or false: "maybe" or a typo would otherwise read as false and turn every limit off.
        boolean enabled = switch (enabledSetting.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("TOLLGATE_LIMITS_ENABLED (tollgate.limits.enabled) must be "
                    + "true or false, was '" + enabledSetting + "'");
        };
        TrafficGuard guard = new TrafficGuard(new TrafficRules(limits), counter, clock, enabled);
        Gauge.builder("tollgate.requests.in.flight", guard, TrafficGuard::inFlight)
                .description("Admitted requests of this instance that hold concurrency slots").register(registry);
        return guard;
    }
}
