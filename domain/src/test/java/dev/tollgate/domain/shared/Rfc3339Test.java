package dev.tollgate.domain.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class Rfc3339Test {

    @ParameterizedTest
    @CsvSource({
        "2030-01-01T00:00:00Z, 2030-01-01T00:00:00Z",
        "2030-01-01t00:00:00z, 2030-01-01T00:00:00Z",
        "2030-01-01T02:00+02:00, 2030-01-01T00:00:00Z",
        "2030-01-01T00:00:00.1234567891Z, 2030-01-01T00:00:00.123456789Z",
        "2030-01-02T00:00:00+19:00, 2030-01-01T05:00:00Z",
        "2030-01-01T00:00:00-23:59, 2030-01-01T23:59:00Z",
        // RFC 3339's leap second: after 23:59:59 UTC on a month's last day, under any offset
        "2030-06-30T23:59:60Z, 2030-07-01T00:00:00Z",
        "2030-07-01T01:59:60.5+02:00, 2030-07-01T00:00:00.500Z",
        "2030-07-01T05:29:60+05:30, 2030-07-01T00:00:00Z",
        "2030-12-31T23:59:60Z, 2031-01-01T00:00:00Z"})
    void readsWhatRfc3339Allows(String typed, String instant) {
        assertEquals(Instant.parse(instant), Rfc3339.parse(typed));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2030-02-30T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01", "2030-01-01T00:00:00",
        " 2030-01-01T00:00:00Z", "2030-01-01T00:00:00+24:00", "2030-01-01T00:00:00+05:60", "12030-01-01T00:00:00Z",
        // second 60 anywhere else: 22:59:60 UTC, a day that ends no month, a local minute 59 under a half-hour offset
        "2030-12-31T23:59:60+01:00", "2030-06-15T23:59:60Z", "2030-06-30T23:58:60Z", "2030-07-01T05:59:60+05:30"})
    void refusesWhatIsNoTimestampOrNamesNoInstant(String typed) {
        assertThrows(DateTimeParseException.class, () -> Rfc3339.parse(typed));
    }
}
