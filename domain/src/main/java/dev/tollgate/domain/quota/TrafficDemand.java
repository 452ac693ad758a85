package dev.tollgate.domain.quota;

import java.util.List;
import java.util.Objects;

/**
 * Everything one request asks of the traffic limits, decided all or nothing: the checks (a request refused by
 * one of them consumes nothing in the others, §8.1), the scopes whose request-limit cooldown applies, and the
 * sample the behavioural cooldown looks at ({@code null} when it does not apply).
 */
public record TrafficDemand(List<QuotaCheck> checks, List<Bucket> cooldownScopes, CooldownRule cooldown,
        BehaviourSample behaviour) {

    public TrafficDemand {
        checks = List.copyOf(checks);
        cooldownScopes = List.copyOf(cooldownScopes);
        Objects.requireNonNull(cooldown);
    }

    /**
     * The same demand with every limit divided among {@code instances} (rounded down, at least 1): what one
     * instance may admit on its own while the shared store is unreachable.
     */
    public TrafficDemand shareOf(int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be at least 1");
        }
        if (instances == 1) {
            return this;
        }
        List<QuotaCheck> shared = checks.stream().map(c -> share(c, instances)).toList();
        return new TrafficDemand(shared, cooldownScopes, cooldown, behaviour);
    }

    private static QuotaCheck share(QuotaCheck check, int instances) {
        long limit = Math.max(1, check.limit() / instances);
        if (check instanceof QuotaCheck.Requests r) {
            return new QuotaCheck.Requests(r.bucket(), limit, r.window(), r.cooldownScope());
        }
        if (check instanceof QuotaCheck.Distinct d) {
            return new QuotaCheck.Distinct(d.bucket(), d.member(), limit, d.window());
        }
        if (check instanceof QuotaCheck.Concurrency c) {
            return new QuotaCheck.Concurrency(c.bucket(), limit);
        }
        QuotaCheck.Tokens t = (QuotaCheck.Tokens) check;
        return new QuotaCheck.Tokens(t.bucket(), limit, t.tokens(), t.window(), t.blocking());
    }

    /** The slots this demand holds while its request runs. */
    public List<Bucket> slots() {
        return checks.stream().filter(c -> c instanceof QuotaCheck.Concurrency).map(QuotaCheck::bucket).toList();
    }
}
