package dev.tollgate.domain.shared;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Value parsing: an RFC 3339 / ISO 8601 date-time with a zone ({@code Z} or an offset), with or without fractional
 * seconds — a four-digit year (so every stored expiry prints as sdk-contract.md's {@code YYYY-MM-DDTHH:MM:SS.sssZ}),
 * at least one digit after a decimal point, seconds optional (ISO 8601). Checked by shape first, then resolved
 * strictly: a date or time that does not exist (30 February, hour 24) is refused, never moved to a nearby one. The
 * one reading of an expiry for the API and the operator CLI alike.
 */
public final class Rfc3339 {

    /** The latest instant whose UTC form still has a four-digit year. */
    public static final Instant LAST_INSTANT = Instant.parse("9999-12-31T23:59:59.999999999Z");

    private static final Pattern SHAPE = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(:\\d{2}(\\.(\\d{1,9})\\d*)?)?([Zz]|[+-]\\d{2}:\\d{2})");
    private static final DateTimeFormatter FORMAT = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
            .toFormatter(Locale.ROOT)
            .withResolverStyle(ResolverStyle.STRICT);

    private Rfc3339() {
    }

    /**
     * The instant {@code typed} names, exactly as typed (no whitespace around it).
     *
     * @throws DateTimeParseException when it is no such timestamp, or names a date or time that does not exist
     */
    public static Instant parse(String typed) {
        Matcher shape = SHAPE.matcher(typed);
        if (!shape.matches()) {
            throw new DateTimeParseException("not an RFC 3339 date-time", typed, 0);
        }
        String text = typed;
        // Digits past the nanosecond (RFC 3339 allows any number) are cut, not rounded.
        if (shape.group(2) != null && shape.group(2).length() > 10) {
            text = text.substring(0, shape.start(2) + 10) + text.substring(shape.end(2));
        }
        // RFC 3339 has a leap second (second 60, after 23:59:59 UTC on the last day of a month, where the IERS
        // inserts them — not after 23:59:59 of the local time under an offset of 5:30) and offsets up to ±23:59,
        // Java neither: the leap second is the instant after :59, and an offset beyond Java's ±18:00 is applied by
        // hand to the same time read at UTC.
        long leap = 0;
        if (text.length() > 18 && text.charAt(16) == ':' && text.startsWith("60", 17)) {
            text = text.substring(0, 17) + "59" + text.substring(19);
            leap = 1;
        }
        long offsetSeconds = 0;
        int sign = text.length() - 6;
        if (text.charAt(sign) == '+' || text.charAt(sign) == '-') {
            int hours = Integer.parseInt(text.substring(sign + 1, sign + 3));
            int minutes = Integer.parseInt(text.substring(sign + 4));
            if (hours > 23 || minutes > 59) {
                throw new DateTimeParseException("no such offset", typed, sign);
            }
            if (hours * 60 + minutes > 18 * 60) {
                offsetSeconds = (text.charAt(sign) == '-' ? -1 : 1) * (hours * 3600L + minutes * 60L);
                text = text.substring(0, sign) + "Z";
            }
        }
        Instant instant = OffsetDateTime.parse(text, FORMAT).toInstant().minusSeconds(offsetSeconds);
        if (leap == 1 && !lastSecondOfAMonth(instant)) {
            throw new DateTimeParseException("a second 60 outside 23:59 UTC on a month's last day", typed, 17);
        }
        return instant.plusSeconds(leap);
    }

    /** Whether {@code instant} is 23:59:59 UTC on the last day of a month: the only second a leap second follows. */
    private static boolean lastSecondOfAMonth(Instant instant) {
        OffsetDateTime utc = instant.atOffset(ZoneOffset.UTC);
        return utc.getHour() == 23 && utc.getMinute() == 59 && utc.getSecond() == 59
                && utc.plusDays(1).getDayOfMonth() == 1;
    }
}
