package dev.tollgate.domain.spend;

import static dev.tollgate.domain.apikey.LimitReset.DAILY;
import static dev.tollgate.domain.apikey.LimitReset.MONTHLY;
import static dev.tollgate.domain.apikey.LimitReset.WEEKLY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.apikey.LimitReset;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpendWindowsTest {

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @ParameterizedTest(name = "{0} {1}: [{2}, {3})")
    @CsvSource({
            // Daily: the UTC calendar day.
            "DAILY, 2026-03-04T00:00:00Z,          2026-03-04T00:00:00Z, 2026-03-05T00:00:00Z",
            "DAILY, 2026-03-04T12:34:56.789Z,      2026-03-04T00:00:00Z, 2026-03-05T00:00:00Z",
            "DAILY, 2026-03-04T23:59:59.999Z,      2026-03-04T00:00:00Z, 2026-03-05T00:00:00Z",
            "DAILY, 2026-03-04T23:59:59.999999999Z, 2026-03-04T00:00:00Z, 2026-03-05T00:00:00Z",
            "DAILY, 2026-03-05T00:00:00Z,          2026-03-05T00:00:00Z, 2026-03-06T00:00:00Z",
            "DAILY, 2026-12-31T23:59:59.999Z,      2026-12-31T00:00:00Z, 2027-01-01T00:00:00Z",
            "DAILY, 2028-02-29T10:00:00Z,          2028-02-29T00:00:00Z, 2028-03-01T00:00:00Z",
            // Weekly: ISO week from Monday 00:00 UTC; 2026-03-01 is a Sunday, 2026-03-02 a Monday.
            "WEEKLY, 2026-03-01T23:59:59.999Z,     2026-02-23T00:00:00Z, 2026-03-02T00:00:00Z",
            "WEEKLY, 2026-03-02T00:00:00Z,         2026-03-02T00:00:00Z, 2026-03-09T00:00:00Z",
            "WEEKLY, 2026-03-04T12:00:00Z,         2026-03-02T00:00:00Z, 2026-03-09T00:00:00Z",
            "WEEKLY, 2026-03-08T23:59:59.999Z,     2026-03-02T00:00:00Z, 2026-03-09T00:00:00Z",
            "WEEKLY, 2026-03-09T00:00:00Z,         2026-03-09T00:00:00Z, 2026-03-16T00:00:00Z",
            // Weeks across a year end (2027-01-01 is a Friday) and a month end.
            "WEEKLY, 2027-01-01T08:00:00Z,         2026-12-28T00:00:00Z, 2027-01-04T00:00:00Z",
            "WEEKLY, 2025-12-31T08:00:00Z,         2025-12-29T00:00:00Z, 2026-01-05T00:00:00Z",
            "WEEKLY, 2028-02-29T08:00:00Z,         2028-02-28T00:00:00Z, 2028-03-06T00:00:00Z",
            // Monthly: the UTC calendar month.
            "MONTHLY, 2026-03-01T00:00:00Z,        2026-03-01T00:00:00Z, 2026-04-01T00:00:00Z",
            "MONTHLY, 2026-03-31T23:59:59.999Z,    2026-03-01T00:00:00Z, 2026-04-01T00:00:00Z",
            "MONTHLY, 2026-04-01T00:00:00Z,        2026-04-01T00:00:00Z, 2026-05-01T00:00:00Z",
            "MONTHLY, 2026-02-15T00:00:00Z,        2026-02-01T00:00:00Z, 2026-03-01T00:00:00Z",
            "MONTHLY, 2028-02-15T00:00:00Z,        2028-02-01T00:00:00Z, 2028-03-01T00:00:00Z",
            "MONTHLY, 2028-02-29T23:59:59.999Z,    2028-02-01T00:00:00Z, 2028-03-01T00:00:00Z",
            "MONTHLY, 2028-03-01T00:00:00Z,        2028-03-01T00:00:00Z, 2028-04-01T00:00:00Z",
            "MONTHLY, 2026-12-31T23:59:59.999Z,    2026-12-01T00:00:00Z, 2027-01-01T00:00:00Z",
            "MONTHLY, 2027-01-01T00:00:00Z,        2027-01-01T00:00:00Z, 2027-02-01T00:00:00Z",
    })
    void windowStartAndEnd(LimitReset period, String instant, String start, String end) {
        assertEquals(at(start), SpendWindows.windowStart(period, at(instant)));
        assertEquals(at(end), SpendWindows.windowEnd(period, at(instant)));
    }

    @Test
    void sundayLastMillisecondAndMondayMidnightAreInDifferentWeeks() {
        Instant sunday = at("2026-03-01T23:59:59.999Z");
        Instant monday = at("2026-03-02T00:00:00Z");
        assertEquals(DayOfWeek.SUNDAY, sunday.atZone(ZoneOffset.UTC).getDayOfWeek());
        assertEquals(DayOfWeek.MONDAY, monday.atZone(ZoneOffset.UTC).getDayOfWeek());
        assertFalse(SpendWindows.windowStart(WEEKLY, sunday).equals(SpendWindows.windowStart(WEEKLY, monday)));
        assertEquals(monday, SpendWindows.windowEnd(WEEKLY, sunday));
        assertEquals(monday, SpendWindows.windowStart(WEEKLY, monday));
        // ... while the month they both belong to is the same one for Monday 2026-03-02 and Sunday 2026-03-01.
        assertEquals(SpendWindows.windowStart(MONTHLY, sunday), SpendWindows.windowStart(MONTHLY, monday));
    }

    @Test
    void leapYearFebruaryIsTwentyNineDays() {
        Instant feb = at("2028-02-10T00:00:00Z");
        assertEquals(Duration.ofDays(29),
                Duration.between(SpendWindows.windowStart(MONTHLY, feb), SpendWindows.windowEnd(MONTHLY, feb)));
        Instant commonFeb = at("2027-02-10T00:00:00Z");
        assertEquals(Duration.ofDays(28), Duration.between(SpendWindows.windowStart(MONTHLY, commonFeb),
                SpendWindows.windowEnd(MONTHLY, commonFeb)));
    }

    @Test
    void windowsAreHalfOpenAlignedAndContiguousAroundManyInstants() {
        SplittableRandom random = new SplittableRandom(2026);
        long from = at("2020-01-01T00:00:00Z").toEpochMilli();
        long to = at("2031-01-01T00:00:00Z").toEpochMilli();
        for (int i = 0; i < 20_000; i++) {
            Instant instant = Instant.ofEpochMilli(random.nextLong(from, to)).plusNanos(random.nextInt(1_000_000));
            for (LimitReset period : LimitReset.values()) {
                Instant start = SpendWindows.windowStart(period, instant);
                Instant end = SpendWindows.windowEnd(period, instant);
                String context = period + " at " + instant;
                assertFalse(start.isAfter(instant), context);
                assertTrue(end.isAfter(instant), context);
                ZonedDateTime startUtc = start.atZone(ZoneOffset.UTC);
                assertEquals(LocalTime.MIDNIGHT, startUtc.toLocalTime(), context);
                assertEquals(LocalTime.MIDNIGHT, end.atZone(ZoneOffset.UTC).toLocalTime(), context);
                long days = Duration.between(start, end).toDays();
                switch (period) {
                    case DAILY:
                        assertEquals(1, days, context);
                        break;
                    case WEEKLY:
                        assertEquals(DayOfWeek.MONDAY, startUtc.getDayOfWeek(), context);
                        assertEquals(7, days, context);
                        break;
                    case MONTHLY:
                        assertEquals(1, startUtc.getDayOfMonth(), context);
                        assertEquals(startUtc.toLocalDate().lengthOfMonth(), days, context);
                        break;
                    default:
                        throw new AssertionError(period);
                }
                // The window's own start lies in it; the instant just before it lies in the previous one.
                assertEquals(start, SpendWindows.windowStart(period, start), context);
                assertEquals(end, SpendWindows.windowStart(period, end), context);
                assertEquals(start, SpendWindows.windowEnd(period, start.minusNanos(1)), context);
            }
        }
    }

    @Test
    void dailyWindowIsUtcWhateverTheDefaultTimeZone() {
        java.util.TimeZone previous = java.util.TimeZone.getDefault();
        try {
            java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Pacific/Kiritimati"));
            assertEquals(at("2026-03-04T00:00:00Z"), SpendWindows.windowStart(DAILY, at("2026-03-04T23:00:00Z")));
        } finally {
            java.util.TimeZone.setDefault(previous);
        }
    }
}
