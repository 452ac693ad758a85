package dev.tollgate.domain.quota;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * §8.1 decision for one request: admitted with the slots it holds, or refused by the most restrictive exhausted
 * bucket — the one the client has to wait for longest, since the request passes only when all of them do.
 */
public sealed interface Admission {

    RateLimitReport report();

    record Admitted(RateLimitReport report, SlotLease lease) implements Admission {
        public Admitted {
            Objects.requireNonNull(report);
            Objects.requireNonNull(lease);
        }
    }

    record Refused(RateLimitReport report, Refusal refusal) implements Admission {
        public Refused {
            Objects.requireNonNull(report);
            Objects.requireNonNull(refusal);
        }
    }

    /** Reads a store's decision. */
    static Admission of(QuotaDecision decision) {
        RateLimitReport report = report(decision.states());
        if (decision.admitted()) {
            return new Admitted(report, decision.lease());
        }
        if (decision.cooldown() != null) {
            QuotaDecision.CooldownBlock cooldown = decision.cooldown();
            // The wait is the cooldown's, or longer when a full window of the request frees up later still: a
            // client that obeys Retry-After must then be admitted (an audit: told 30 s, refused again at 30 s).
            Duration longest = cooldown.retryAfter();
            for (CheckState state : decision.states()) {
                if (!state.passed() && !(state.check() instanceof QuotaCheck.Tokens)
                        && !(state.check() instanceof QuotaCheck.Concurrency)
                        && state.retryAfter().compareTo(longest) > 0) {
                    longest = state.retryAfter();
                }
            }
            QuotaDecision.CooldownBlock block = new QuotaDecision.CooldownBlock(cooldown.scope(), longest,
                    cooldown.behavioural());
            boolean counted = false;
            for (CheckState state : decision.states()) {
                if (state.check().bucket().equals(block.scope())) {
                    report = new RateLimitReport(window(state), report.tokens()); // the scope that cools down
                    counted = true;
                }
            }
            if (!counted) {
                // A scope no request bucket counts (the behavioural cooldown's key, IP and model): nothing of it is
                // allowed until the cooldown ends.
                report = new RateLimitReport(new RateLimitReport.Window(block.scope().scope(), 0, 0,
                        block.retryAfter()), report.tokens());
            }
            if (report.requests() != null) {
                // Nothing passes until the cooldown is over, whatever the window would allow.
                RateLimitReport.Window w = report.requests();
                Duration reset = w.reset().compareTo(block.retryAfter()) >= 0 ? w.reset() : block.retryAfter();
                report = new RateLimitReport(new RateLimitReport.Window(w.scope(), w.limit(), 0, reset),
                        report.tokens());
            }
            long seconds = new Refusal(Refusal.Kind.COOLDOWN, block.scope().scope(), "", block.retryAfter())
                    .retryAfterSeconds();
            String message = block.behavioural()
                    ? "Too many near-identical or minimal requests came from " + block.scope().scope().description()
                            + "; requests are paused for " + seconds + " s. Vary or batch your requests."
                    : "Requests from " + block.scope().scope().description() + " were refused by rate limits "
                            + "repeatedly; requests are paused for " + seconds + " s. Slow down before retrying.";
            return new Refused(report, new Refusal(block.behavioural() ? Refusal.Kind.BEHAVIOURAL_COOLDOWN
                    : Refusal.Kind.COOLDOWN, block.scope().scope(), message, block.retryAfter()));
        }
        CheckState deciding = decision.states().stream()
                .filter(s -> !s.passed())
                .max(Comparator.comparing(CheckState::retryAfter))
                .orElseThrow();
        if (deciding.check() instanceof QuotaCheck.Requests) {
            // The headers then name the bucket that refused, not merely the one with the least left.
            report = new RateLimitReport(window(deciding), report.tokens());
        } else if (!(deciding.check() instanceof QuotaCheck.Tokens)) {
            // A concurrency cap or distinct-source set refused: the requests headers describe it (nothing left of
            // it until the wait is over), never a request bucket with room to spare.
            report = new RateLimitReport(new RateLimitReport.Window(deciding.check().bucket().scope(),
                    deciding.check().limit(), 0, deciding.retryAfter()), report.tokens());
        }
        return new Refused(report, refusal(deciding));
    }

    private static Refusal refusal(CheckState state) {
        QuotaCheck check = state.check();
        LimitScope scope = check.bucket().scope();
        String who = scope.description();
        long seconds = new Refusal(Refusal.Kind.REQUESTS, scope, "", state.retryAfter()).retryAfterSeconds();
        String wait = "; retry after " + seconds + " s.";
        if (check instanceof QuotaCheck.Requests r) {
            return new Refusal(Refusal.Kind.REQUESTS, scope, "Rate limit exceeded: " + who + " allows " + r.limit()
                    + " requests per " + words(r.window()) + wait, state.retryAfter());
        }
        if (check instanceof QuotaCheck.Concurrency c) {
            return new Refusal(Refusal.Kind.CONCURRENCY, scope, "Too many requests in flight: " + who + " allows "
                    + c.limit() + " at once; retry when one of them has finished.", state.retryAfter());
        }
        if (check instanceof QuotaCheck.Distinct d) {
            return new Refusal(Refusal.Kind.DISTINCT, scope, "Too many distinct "
                    + (scope == LimitScope.IP ? "keys were used from " + who : "source IPs used " + who)
                    + ": at most " + d.limit() + " per " + words(d.window()) + wait, state.retryAfter());
        }
        QuotaCheck.Tokens t = (QuotaCheck.Tokens) check;
        return new Refusal(Refusal.Kind.TOKENS, scope, "Token budget exceeded: " + who + " allows " + t.limit()
                + " estimated tokens per " + words(t.window()) + wait, state.retryAfter());
    }

    /** "minute", "hour", "10 seconds" — how a window reads in a message. */
    static String words(Duration window) {
        if (window.equals(Duration.ofMinutes(1))) {
            return "minute";
        }
        if (window.equals(Duration.ofHours(1))) {
            return "hour";
        }
        if (window.toMillis() % 3_600_000 == 0) {
            return window.toHours() + " hours";
        }
        if (window.toMillis() % 60_000 == 0) {
            return window.toMinutes() + " minutes";
        }
        if (window.toMillis() % 1000 == 0) {
            return window.toSeconds() + " seconds";
        }
        return window.toMillis() + " ms";
    }

    /** The deciding request bucket and token window: least left, the longer window on a tie. */
    private static RateLimitReport report(List<CheckState> states) {
        return new RateLimitReport(deciding(states, QuotaCheck.Requests.class),
                deciding(states, QuotaCheck.Tokens.class));
    }

    private static RateLimitReport.Window deciding(List<CheckState> states, Class<? extends QuotaCheck> kind) {
        return states.stream()
                .filter(s -> kind.isInstance(s.check()))
                .min(Comparator.comparingLong(CheckState::remaining)
                        .thenComparing(Comparator.comparing(CheckState::reset).reversed()))
                .map(Admission::window)
                .orElse(null);
    }

    private static RateLimitReport.Window window(CheckState state) {
        return new RateLimitReport.Window(state.check().bucket().scope(), state.check().limit(), state.remaining(),
                state.reset());
    }
}
