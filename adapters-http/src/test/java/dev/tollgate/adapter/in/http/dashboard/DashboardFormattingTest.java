package dev.tollgate.adapter.in.http.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.Usd;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's reading and writing of money and forms: exact amounts (never $0.00 for a fraction of a cent), the
 * key form's fields, CSV quoting with formula cells defused, and bar heights in integers.
 */
class DashboardFormattingTest {

    @Test
    void moneyShowsCentsOrEveryMicroDollarThatMatters() {
        assertEquals("$0.00", DashboardPages.money(Usd.ZERO));
        assertEquals("$12.50", DashboardPages.money(Usd.ofMicros(12_500_000)));
        assertEquals("$5.00", DashboardPages.money(Usd.ofMicros(5_000_000)));
        assertEquals("$0.000034", DashboardPages.money(Usd.ofMicros(34)));
        assertEquals("$1.0001", DashboardPages.money(Usd.ofMicros(1_000_100)));
        assertEquals("0.000034", UsageController.decimalUsd(Usd.ofMicros(34)));
        assertEquals("12.500000", UsageController.decimalUsd(Usd.ofMicros(12_500_000)));
    }

    @Test
    void keyFormsReadLimitsResetsAndExpiriesLikeTheApi() {
        assertEquals(Usd.ofMicros(5_250_000), KeyForms.limit(Map.of("limit", " 5.25 ")));
        assertEquals(Usd.ofMicros(300_000), KeyForms.limit(Map.of("limit", "$0.3")));
        assertNull(KeyForms.limit(Map.of("limit", "")));
        assertNull(KeyForms.limit(Map.of()));
        assertEquals(Usd.ofMicros(1_000_000_000), KeyForms.limit(Map.of("limit", "1,000")));
        assertEquals(Usd.ofMicros(1_234_567_500_000L), KeyForms.limit(Map.of("limit", "$1,234,567.50")));
        assertEquals(Usd.ofMicros(500_000), KeyForms.limit(Map.of("limit", ".5")));
        // Decimals as the JSON API takes them, rounded half-up to the micro-dollar (an audit: refused past 12).
        assertEquals(Usd.ofMicros(300_000), KeyForms.limit(Map.of("limit", "0.30000000000000004")));
        assertEquals(Usd.ofMicros(1_000_000), KeyForms.limit(Map.of("limit", "1.0000000000001")));
        assertEquals(Usd.ofMicros(1_000_001), KeyForms.limit(Map.of("limit", "1.0000005")));
        // No exponents (1e-100000000 would take minutes to round) and no digits of other scripts.
        for (String bad : new String[] {"0", "-1", "abc", "0.0000004", "1000000000001", "1e-100000000", "1E-2147483647",
            "1e2", "\uff11", "\u0661", "1." + "0".repeat(64) + "1", "+5", "NaN",
            // A comma only between thousands: "5,00" is five dollars written the European way, never 500.
            "5,00", "1,5", "1.000,50", ",5", "1,,0", "10,00,000", "1,0000"}) {
            assertThrows(KeyForms.FieldError.class, () -> KeyForms.limit(Map.of("limit", bad)), bad);
        }
        assertEquals(LimitReset.WEEKLY, KeyForms.reset(Map.of("limit_reset", "weekly")));
        assertNull(KeyForms.reset(Map.of("limit_reset", "")));
        assertThrows(KeyForms.FieldError.class, () -> KeyForms.reset(Map.of("limit_reset", "hourly")));
        assertEquals(Instant.parse("2030-01-31T23:59:00Z"), KeyForms.expiry(Map.of("expires_at", "2030-01-31T23:59")));
        assertEquals(Instant.parse("2030-01-31T23:59:00Z"),
                KeyForms.expiry(Map.of("expires_at", "2030-01-31T23:59:42")), "to the minute");
        assertNull(KeyForms.expiry(Map.of("expires_at", " ")));
        assertThrows(KeyForms.FieldError.class, () -> KeyForms.expiry(Map.of("expires_at", "tomorrow")));
        assertThrows(KeyForms.FieldError.class, () -> KeyForms.expiry(Map.of("expires_at", "2030-02-30T10:00")),
                "a day that does not exist is refused, not moved to 28 February");
        assertThrows(KeyForms.FieldError.class, () -> KeyForms.expiry(Map.of("expires_at", "2030-01-01T24:00")));
        for (String seconds : java.util.List.of(":60", ":61", ":99", ":60.5")) {
            assertThrows(KeyForms.FieldError.class, () -> KeyForms.expiry(Map.of("expires_at", "2030-01-01T10:00"
                    + seconds)), "seconds that do not exist are refused, not dropped: " + seconds);
        }
        assertEquals(Instant.parse("2030-01-01T10:00:00Z"),
                KeyForms.expiry(Map.of("expires_at", "2030-01-01T10:00:59.999")), "a browser's milliseconds are cut");
        assertEquals("2030-01-31T23:59", KeyForms.inputValue(Instant.parse("2030-01-31T23:59:30Z")));
        assertEquals("5.25", KeyForms.inputValue(Usd.ofMicros(5_250_000)));
    }

    @Test
    void csvFieldsAreQuotedWhenNeededAndFormulasDefused() {
        assertEquals("plain", UsageController.Csv.field("plain"));
        assertEquals("\"a,b\"", UsageController.Csv.field("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", UsageController.Csv.field("say \"hi\""));
        assertEquals("\"two\nlines\"", UsageController.Csv.field("two\nlines"));
        assertEquals("'=1+1", UsageController.Csv.field("=1+1"));
        // A ';'-separated locale would split an unquoted field and start a cell with the formula (an audit).
        assertEquals("\"x;=cmd|' /C calc'!A0;\"", UsageController.Csv.field("x;=cmd|' /C calc'!A0;"));
        assertEquals("\"a\t=1\"", UsageController.Csv.field("a\t=1"));
        assertEquals("'@SUM(A1)", UsageController.Csv.field("@SUM(A1)"));
        assertEquals("\"'=HYPERLINK(\"\"x\"\"),y\"", UsageController.Csv.field("=HYPERLINK(\"x\"),y"));
        assertEquals("", UsageController.Csv.field(""));
        StringBuilder row = new StringBuilder();
        UsageController.Csv.row(row, java.util.List.of("a", "b,c", ""));
        assertEquals("a,\"b,c\",\r\n", row.toString());
    }

    @Test
    void barsAreTheirValuesShareOfTheHighestDay() {
        assertEquals(0, UsageCharts.barHeight(0, 100, 174));
        assertEquals(174, UsageCharts.barHeight(100, 100, 174));
        assertEquals(87, UsageCharts.barHeight(50, 100, 174));
        assertEquals(1, UsageCharts.barHeight(1, 1_000_000, 174), "a day with any spend stays visible");
        assertEquals(174, UsageCharts.barHeight(Long.MAX_VALUE, Long.MAX_VALUE, 174), "no overflow");
        assertEquals(0, UsageCharts.barHeight(5, 0, 174));
    }
}
