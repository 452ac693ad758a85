package dev.tollgate.bootstrap;

import dev.tollgate.adapter.out.persistence.billing.JdbcGatewayInstances;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;

/**
 * Counts the live gateway instances every second while the traffic limits live in Redis, so that a Redis outage
 * divides each limit among the instances that are actually running, and tells them which instances decide alone
 * (docs/operations.md).
 */
@Singleton
@Requires(property = "redis.uri", pattern = ".+")
final class GatewayInstancesSchedule {

    private final JdbcGatewayInstances instances;

    GatewayInstancesSchedule(JdbcGatewayInstances instances) {
        this.instances = instances;
    }

    @Scheduled(fixedDelay = "1s", initialDelay = "1s")
    void refresh() {
        instances.refresh();
    }
}
