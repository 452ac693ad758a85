package dev.tollgate.application.port.in.usage;

import dev.tollgate.application.port.out.PaymentProvider.TopUp;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Query result: the ledger of an account's money — what it can spend now, all credits and all spend, and the lines
 * of a recent period, newest first: each credit, and the spend of each day that had any.
 */
public record BalanceStatement(Usd balance, Usd totalCredits, Usd totalSpend, List<Line> lines,
        LocalDate periodStart, Optional<TopUp> topUp) {

    /** One line: a credit (positive) or a day's spend (a charge). */
    public record Line(Instant at, Kind kind, Usd amount, String description, Usd balanceAfter, long requests) {

        public enum Kind { CREDIT, SPEND }

        public Line {
            Objects.requireNonNull(at);
            Objects.requireNonNull(kind);
            Objects.requireNonNull(amount);
            Objects.requireNonNull(description);
        }
    }

    public BalanceStatement {
        Objects.requireNonNull(balance);
        lines = List.copyOf(lines);
    }
}
