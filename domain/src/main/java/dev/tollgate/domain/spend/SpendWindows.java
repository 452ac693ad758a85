package dev.tollgate.domain.spend;

import dev.tollgate.domain.apikey.LimitReset;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;

/**
 * The spend windows of a key (§2.1 usage_daily/weekly/monthly, §4.1 limit_reset): the UTC day, the ISO week
 * starting Monday 00:00 UTC, and the UTC calendar month. A window includes its start and excludes its end.
 */
public final class SpendWindows {

    private SpendWindows() {
    }

    /** The start of the window of the given period that contains {@code at}. */
    public static Instant windowStart(LimitReset period, Instant at) {
        LocalDate day = LocalDate.ofInstant(at, ZoneOffset.UTC);
        LocalDate start = switch (period) {
            case DAILY -> day;
            case WEEKLY -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTHLY -> day.withDayOfMonth(1);
        };
        return start.atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** The first instant after the window of the given period that contains {@code at}. */
    public static Instant windowEnd(LimitReset period, Instant at) {
        LocalDate start = LocalDate.ofInstant(windowStart(period, at), ZoneOffset.UTC);
        LocalDate end = switch (period) {
            case DAILY -> start.plusDays(1);
            case WEEKLY -> start.plusWeeks(1);
            case MONTHLY -> start.plusMonths(1);
        };
        return end.atStartOfDay(ZoneOffset.UTC).toInstant();
    }
}
